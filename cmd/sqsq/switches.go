package main

import (
	"strconv"

	"github.com/sqsq/sqsq"
)

// Two behaviours AWS leaves open have a switch each, as a flag and as a
// config-file key. The defaults are sqsq's: the unlucky side of the
// documented "might", and what was observed on AWS.
//
//   - -stale-delete-removes (staleDeleteRemoves): a DeleteMessage with a
//     stale receipt handle (the message was received again since) deletes
//     the message. AWS documents that such a request succeeds but the
//     message "might not be deleted"; sqsq by default deletes nothing, so a
//     consumer that relies on the old handle fails in tests, not in
//     production. See [sqsq.WithStaleDeleteRemoves].
//   - -strict-not-inflight (strictNotInflight): a ChangeMessageVisibility on
//     a standard-queue message whose visibility already ended fails with
//     MessageNotInflight, instead of succeeding and changing nothing as
//     observed on AWS. See [sqsq.WithStrictNotInflight].

// switchFlag is a boolean flag that remembers whether the command line set
// it, so that -name=false can override a config file's true.
type switchFlag struct{ on, set bool }

func (f *switchFlag) String() string { return strconv.FormatBool(f != nil && f.on) }

func (f *switchFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	f.on, f.set = v, true
	return nil
}

// IsBoolFlag lets the flag stand alone: -stale-delete-removes means true.
func (f *switchFlag) IsBoolFlag() bool { return true }

// or is the flag's value when the command line set it, else fromConfig.
func (f *switchFlag) or(fromConfig bool) bool {
	if f.set {
		return f.on
	}
	return fromConfig
}

// switches are the broker's settings of the two behaviours: each flag the
// command line set wins over the config file's key.
type switches struct {
	staleDeleteRemoves bool
	strictNotInflight  bool
}

func resolveSwitches(o options, cfg config) switches {
	return switches{
		staleDeleteRemoves: o.staleDeleteRemoves.or(cfg.StaleDeleteRemoves),
		strictNotInflight:  o.strictNotInflight.or(cfg.StrictNotInflight),
	}
}

func (s switches) options() []sqsq.Option {
	return []sqsq.Option{sqsq.WithStaleDeleteRemoves(s.staleDeleteRemoves), sqsq.WithStrictNotInflight(s.strictNotInflight)}
}
