package main

import (
	"fmt"
	"strconv"
	"strings"
)

// fate is what the consumers do with a message, chosen from its number so
// that the ledger knows what to expect of it.
type fate uint8

const (
	fateOK         fate = iota // deleted on its first receive
	fateFailOnce               // its handler fails on the first receive, succeeds on the second
	fateAlwaysFail             // its handler always fails: it must end in the dead-letter queue
	fateSlow                   // its handler extends the visibility, works past the queue's timeout, then deletes
)

func (f fate) String() string {
	return [...]string{"ok", "fail-once", "always-fail", "slow"}[f]
}

// plan is the deterministic mix of a run: which queue each message goes to
// and how its handler behaves. Messages are numbered 0 to n-1.
type plan struct {
	n         int
	fifoShare float64 // fraction of messages sent to the FIFO queue
	groups    int     // FIFO message groups
	producers int
	bodySize  int
	// Per-ten-thousand shares of the fates; the rest are fateOK.
	alwaysFail, failOnce, slow int
}

// mix is splitmix64: a cheap hash that spreads message numbers evenly.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func (p plan) isFIFO(n int) bool {
	return float64(mix(uint64(n))%10000) < p.fifoShare*10000
}

func (p plan) fate(n int) fate {
	switch r := int(mix(uint64(n)^0x5eed) % 10000); {
	case r < p.alwaysFail:
		return fateAlwaysFail
	case r < p.alwaysFail+p.failOnce:
		return fateFailOnce
	case r < p.alwaysFail+p.failOnce+p.slow:
		return fateSlow
	}
	return fateOK
}

// nacks reports whether a failing handler of message n gives the message
// back at once (ChangeMessageVisibility to 0) rather than letting its
// visibility timeout run out, as a crashed consumer would: half do each.
func (p plan) nacks(n int) bool { return mix(uint64(n)^0xbad)&1 == 0 }

// producerGroups are the FIFO groups producer i sends to: each group has
// one producer, so its messages are sent in one order the ledger knows.
func (p plan) producerGroups(i int) []int {
	var gs []int
	for g := i; g < p.groups; g += p.producers {
		gs = append(gs, g)
	}
	return gs
}

// body is the body of message n: its number and, for FIFO, its group and
// its sequence within the group, padded to the body size.
func (p plan) body(n, group, seq int) string {
	var s string
	if group < 0 {
		s = "soak " + strconv.Itoa(n) + " s "
	} else {
		s = fmt.Sprintf("soak %d f %d %d ", n, group, seq)
	}
	if pad := p.bodySize - len(s); pad > 0 {
		s += strings.Repeat(".", pad)
	}
	return s
}

// parsedBody is what a body says of its message.
type parsedBody struct {
	n, group, seq int // group and seq are -1 for the standard queue
	fifo          bool
}

func parseBody(s string) (parsedBody, error) {
	f := strings.Fields(s)
	bad := fmt.Errorf("not a soak body: %.40q", s)
	if len(f) < 3 || f[0] != "soak" {
		return parsedBody{}, bad
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 0 {
		return parsedBody{}, bad
	}
	switch {
	case f[2] == "s":
		return parsedBody{n: n, group: -1, seq: -1}, nil
	case f[2] == "f" && len(f) >= 5:
		g, err1 := strconv.Atoi(f[3])
		q, err2 := strconv.Atoi(f[4])
		if err1 != nil || err2 != nil || g < 0 || q < 0 {
			return parsedBody{}, bad
		}
		return parsedBody{n: n, group: g, seq: q, fifo: true}, nil
	}
	return parsedBody{}, bad
}
