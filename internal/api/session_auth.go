package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// SessionAuthSkew is how far a signed session request's time may be from
// the agent's clock.
const SessionAuthSkew = 5 * time.Minute

// SignSession returns SessionAuthHeader's value for a request to session
// jobID at now, signed with key (SHA-256 of the node's token).
func SignSession(key []byte, jobID int64, now time.Time) string {
	ts := strconv.FormatInt(now.Unix(), 10)
	return ts + "." + sessionMAC(key, jobID, ts)
}

// VerifySession reports whether value is a signature by key of a request
// to session jobID made within SessionAuthSkew of now.
func VerifySession(key []byte, jobID int64, value string, now time.Time) bool {
	ts, mac, ok := strings.Cut(value, ".")
	if !ok {
		return false
	}
	secs, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	if d := now.Sub(time.Unix(secs, 0)); d > SessionAuthSkew || d < -SessionAuthSkew {
		return false
	}
	return hmac.Equal([]byte(mac), []byte(sessionMAC(key, jobID, ts)))
}

func sessionMAC(key []byte, jobID int64, ts string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(strconv.FormatInt(jobID, 10) + "\n" + ts))
	return hex.EncodeToString(m.Sum(nil))
}
