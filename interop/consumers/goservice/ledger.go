package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"sync"
)

// Ledger is the payment side of the service: an append-only file with a
// line "charge <orderId> <messageId>" for each charge (and "skip <orderId>
// <messageId>" for each delivery the idempotent service did not charge),
// which the harness reads. It is safe for concurrent use.
type Ledger struct {
	mu      sync.Mutex
	f       *os.File
	charged map[string]bool // order ids with a charge line
}

// OpenLedger opens (or creates) the ledger at path, reading the orders it
// has charged already, so a restarted service stays idempotent.
func OpenLedger(path string) (*Ledger, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	l := &Ledger{f: f, charged: map[string]bool{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 3 && fields[0] == "charge" {
			l.charged[fields[1]] = true
		}
	}
	if err := sc.Err(); err != nil {
		f.Close()
		return nil, fmt.Errorf("ledger %s: %w", path, err)
	}
	return l, nil
}

// Charge charges orderID for the delivery of messageID and reports true.
// With idempotent, an order charged before is not charged again: Charge
// records the skip and reports false. The check and the charge are one
// step under the lock, so two workers holding two deliveries of the same
// message charge it once.
func (l *Ledger) Charge(orderID, messageID string, idempotent bool) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	kind := "charge"
	if idempotent && l.charged[orderID] {
		kind = "skip"
	}
	if _, err := fmt.Fprintf(l.f, "%s %s %s\n", kind, orderID, messageID); err != nil {
		return false, fmt.Errorf("ledger: %w", err)
	}
	l.charged[orderID] = true
	return kind == "charge", nil
}

// Close closes the file.
func (l *Ledger) Close() error { return l.f.Close() }
