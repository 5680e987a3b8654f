package durable

import "github.com/sqsq/sqsq/internal/state"

// msgKey names a message: its queue and Seq.
type msgKey struct{ q, seq uint64 }

// changeKey names a record other than a message that a change sets.
type changeKey struct {
	kind      byte // 'q' queue, 's' scope, 't' task, 'h' header, 'w' window entry
	id, seq   uint64
	win       state.Window
	key, key2 string
}

// slot is one record of coalesce's answer: the last change of the record
// so far, where the answer writes it.
type slot struct {
	c     *state.Change
	kind  byte   // 'm' message, 'w' window entry, else 0
	queue uint64 // of a message or a window entry
	moved bool   // a window entry changed again later: written there
}

// coalesce returns what a checkpoint writes of the changes cs, the
// concatenation of segs: for each record, its last change, where the
// record first changed in cs: a queue made in cs then comes before its
// messages, a scope before its queues, whatever changed them later. The
// entries of a window come where they last changed instead, since a
// window is in the order of its puts (an entry put again moves to the
// end). A queue deleted in cs takes its messages' and entries' changes
// with it: they would name a queue the file may not have.
//
// It runs at every checkpoint over a second of commits, some three changes
// a message, so it keeps one slot per record, in the order of the
// answer, and one map lookup per change: a slot is made where its record
// first changes (or, for a window entry, made again where it changes
// again), which is the answer's order.
func coalesce(segs [][]state.Change) []*state.Change {
	n := 0
	for _, seg := range segs {
		n += len(seg)
	}
	slots := make([]slot, 0, n/2)
	// Messages' changes are most of them, and a key of two numbers hashes
	// faster than a changeKey.
	msgs := make(map[msgKey]int32, n/2)
	others := map[changeKey]int32{}
	var gone map[uint64]bool
	for _, seg := range segs {
		for i := range seg {
			c := &seg[i]
			var k changeKey
			switch c.Kind {
			case 0: // a checkpoint's: no record
				continue
			case state.MessagePut, state.MessageDelete:
				mk := msgKey{c.QueueID, c.Seq}
				if c.Kind == state.MessagePut {
					mk.seq = c.Message.Seq
				}
				if j, ok := msgs[mk]; ok {
					slots[j].c = c
				} else {
					msgs[mk] = int32(len(slots))
					slots = append(slots, slot{c: c, kind: 'm', queue: c.QueueID})
				}
				continue
			case state.QueuePut:
				k = changeKey{kind: 'q', id: c.QueueID}
			case state.QueueDelete:
				k = changeKey{kind: 'q', id: c.QueueID}
				if gone == nil {
					gone = map[uint64]bool{}
				}
				gone[c.QueueID] = true
			case state.ScopePut:
				k = changeKey{kind: 's', key: c.Scope.Account, key2: c.Scope.Region}
			case state.ScopeDelete:
				k = changeKey{kind: 's', key: c.Account, key2: c.Region}
			case state.TaskPut:
				k = changeKey{kind: 't', seq: c.Task.Seq}
			case state.TaskDelete:
				k = changeKey{kind: 't', seq: c.TaskSeq}
			case state.HeaderPut:
				k = changeKey{kind: 'h'}
			case state.WindowPut, state.WindowDelete:
				key, _ := c.EntryKey()
				k = changeKey{kind: 'w', id: c.QueueID, win: c.Window, key: key}
			}
			j, ok := others[k]
			switch {
			case ok && k.kind == 'w': // written where it last changed
				slots[j].moved = true
			case ok:
				slots[j].c = c
				continue
			}
			others[k] = int32(len(slots))
			s := slot{c: c}
			if k.kind == 'w' {
				s.kind, s.queue = 'w', c.QueueID
			}
			slots = append(slots, s)
		}
	}
	out := make([]*state.Change, 0, len(slots))
	for i := range slots {
		s := &slots[i]
		if s.moved || (s.kind != 0 && gone[s.queue]) {
			continue
		}
		out = append(out, s.c)
	}
	return out
}
