package models

import (
	"encoding/hex"
	"math/rand/v2"
	"time"
)

// newSubmitToken returns a job's submit_token: a version 7 UUID (RFC 9562)
// in its text form, whose first 48 bits are the submission's Unix time in
// milliseconds and whose other 74 free bits are random. Two tokens collide
// only when they are drawn in the same millisecond and their 74 random bits
// match; tokens drawn later sort later, so the unique index on them grows
// at its right edge. The random bits come from the runtime's per-thread
// ChaCha8 generator (math/rand/v2), seeded by the operating system.
func newSubmitToken(now time.Time) string {
	var b [16]byte
	ms := uint64(now.UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (40 - 8*i))
	}
	hi, lo := rand.Uint64(), rand.Uint64()
	b[6] = 0x70 | byte(hi>>60)&0x0f // version 7, then 4 random bits
	b[7] = byte(hi >> 52)
	b[8] = 0x80 | byte(lo>>58)&0x3f // variant 10, then 6 random bits
	for i := 9; i < 16; i++ {
		b[i] = byte(lo >> (8 * (15 - i)))
	}
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:36], b[10:16])
	return string(s[:])
}
