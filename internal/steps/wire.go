package steps

import (
	"bufio"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// msg is one message between the coordinator and a worker or an srun, one
// JSON object a line. Kind says which fields matter.
type msg struct {
	Kind  string `json:"k"`
	Step  int    `json:"s,omitempty"`
	Node  int    `json:"n,omitempty"`
	Role  string `json:"role,omitempty"`
	Nonce []byte `json:"nonce,omitempty"`
	MAC   []byte `json:"mac,omitempty"`
	// A step: its command, the srun's environment (Env, from the srun to
	// the coordinator) or its difference from the batch script's start
	// (Set and Unset, to a worker), and its shape.
	Argv     []string          `json:"argv,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	Set      map[string]string `json:"set,omitempty"`
	Unset    []string          `json:"unset,omitempty"`
	Bin      string            `json:"bin,omitempty"`
	Dir      string            `json:"dir,omitempty"`
	Tasks    []int             `json:"tasks,omitempty"` // tasks per node of the step
	NodeList string            `json:"nodelist,omitempty"`
	// Output of a task (Stream 1 stdout, 2 stderr), a task's end (Task,
	// Code), or a sentence.
	Stream int    `json:"o,omitempty"`
	Data   []byte `json:"d,omitempty"`
	Task   int    `json:"t,omitempty"`
	Code   int    `json:"c,omitempty"`
	Text   string `json:"x,omitempty"`
}

// peer is one end of a connection: messages are sent whole, one at a time.
type peer struct {
	conn net.Conn
	dec  *json.Decoder
	mu   sync.Mutex
	enc  *json.Encoder
}

func newPeer(c net.Conn) *peer {
	return &peer{conn: c, dec: json.NewDecoder(bufio.NewReader(c)), enc: json.NewEncoder(c)}
}

func (p *peer) send(m msg) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.enc.Encode(m)
}

func (p *peer) recv() (msg, error) {
	var m msg
	err := p.dec.Decode(&m)
	return m, err
}

// handshakeWait bounds how long a handshake may take.
const handshakeWait = 10 * time.Second

// errRefused is the coordinator's answer to a wrong secret.
var errRefused = errors.New("the batch step's coordinator refused this job's secret")

// mac is the proof that a peer knows the job's secret: an HMAC of the
// coordinator's fresh nonce (the secret itself never crosses the network).
func mac(secret, nonce []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write(nonce)
	return h.Sum(nil)
}

// accept runs the coordinator's side of a handshake: a nonce out, a role,
// node and MAC back. A wrong MAC is refused and the connection closed.
func accept(c net.Conn, secret []byte) (*peer, msg, error) {
	p := newPeer(c)
	_ = c.SetDeadline(time.Now().Add(handshakeWait))
	nonce := make([]byte, 32)
	if _, err := rand.Read(nonce); err != nil {
		return nil, msg{}, fmt.Errorf("steps: nonce: %w", err)
	}
	if err := p.send(msg{Kind: "challenge", Nonce: nonce}); err != nil {
		return nil, msg{}, fmt.Errorf("steps: challenge: %w", err)
	}
	hello, err := p.recv()
	if err != nil {
		return nil, msg{}, fmt.Errorf("steps: hello: %w", err)
	}
	if hello.Kind != "hello" || !hmac.Equal(hello.MAC, mac(secret, nonce)) {
		_ = p.send(msg{Kind: "refused"})
		return nil, msg{}, errRefused
	}
	if err := p.send(msg{Kind: "welcome"}); err != nil {
		return nil, msg{}, fmt.Errorf("steps: welcome: %w", err)
	}
	_ = c.SetDeadline(time.Time{})
	return p, hello, nil
}

// greet runs a worker's or srun's side of a handshake as role on node.
func greet(c net.Conn, secret []byte, role string, node int) (*peer, error) {
	p := newPeer(c)
	_ = c.SetDeadline(time.Now().Add(handshakeWait))
	ch, err := p.recv()
	if err != nil {
		return nil, fmt.Errorf("steps: challenge: %w", err)
	}
	if ch.Kind != "challenge" {
		return nil, fmt.Errorf("steps: the coordinator said %q, not a challenge", ch.Kind)
	}
	if err := p.send(msg{Kind: "hello", Role: role, Node: node, MAC: mac(secret, ch.Nonce)}); err != nil {
		return nil, fmt.Errorf("steps: hello: %w", err)
	}
	w, err := p.recv()
	if err != nil || w.Kind != "welcome" {
		return nil, errRefused
	}
	_ = c.SetDeadline(time.Time{})
	return p, nil
}
