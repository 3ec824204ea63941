package models

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// SecretBox seals secrets kept in the database (webhook signing secrets,
// Slack webhook URLs) with AES-256-GCM under keys derived from the server's
// session keys: the first seals, all open (rotation). A nil box or one
// without keys stores values as given.
type SecretBox struct {
	aeads []cipher.AEAD
}

// sealedPrefix marks a sealed value.
const sealedPrefix = "sealed:v1:"

// NewSecretBox derives one AES-256-GCM key per server key.
func NewSecretBox(keys [][]byte) (*SecretBox, error) {
	b := &SecretBox{}
	for _, k := range keys {
		sum := sha256.Sum256(append([]byte("gpusched notification secrets v1\x00"), k...))
		block, err := aes.NewCipher(sum[:])
		if err != nil {
			return nil, fmt.Errorf("models: secret box: %w", err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("models: secret box: %w", err)
		}
		b.aeads = append(b.aeads, aead)
	}
	return b, nil
}

// Seal returns plain sealed under the first key ("" stays "").
func (b *SecretBox) Seal(plain string) string {
	if b == nil || len(b.aeads) == 0 || plain == "" {
		return plain
	}
	a := b.aeads[0]
	nonce := make([]byte, a.NonceSize())
	_, _ = rand.Read(nonce)
	return sealedPrefix + base64.RawStdEncoding.EncodeToString(a.Seal(nonce, nonce, []byte(plain), nil))
}

// ErrUnsealable is returned for a sealed value no configured key opens.
var ErrUnsealable = errors.New("secret sealed under a key this server does not have")

// Open returns the plain value of a sealed one; values stored unsealed are
// returned as they are.
func (b *SecretBox) Open(stored string) (string, error) {
	if !strings.HasPrefix(stored, sealedPrefix) {
		return stored, nil
	}
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(stored, sealedPrefix))
	if err != nil {
		return "", fmt.Errorf("models: open secret: %w", err)
	}
	if b != nil {
		for _, a := range b.aeads {
			if len(raw) < a.NonceSize() {
				break
			}
			if plain, err := a.Open(nil, raw[:a.NonceSize()], raw[a.NonceSize():], nil); err == nil {
				return string(plain), nil
			}
		}
	}
	return "", ErrUnsealable
}

// Opened returns ch with its secret and target opened.
func (b *SecretBox) Opened(ch *NotificationChannel) (*NotificationChannel, error) {
	out := *ch
	var err error
	if out.Secret, err = b.Open(ch.Secret); err != nil {
		return nil, fmt.Errorf("models: channel %d secret: %w", ch.ID, err)
	}
	if out.Target, err = b.Open(ch.Target); err != nil {
		return nil, fmt.Errorf("models: channel %d address: %w", ch.ID, err)
	}
	return &out, nil
}
