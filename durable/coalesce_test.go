package durable

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sqsq/sqsq/internal/state"
	"pgregory.net/rapid"
)

// coalesce keeps each record's last change where the record first
// changed, the entries of a window where they last changed, and drops the
// messages of a queue deleted later.
func TestCoalesce(t *testing.T) {
	t.Parallel()
	msg := func(q, seq uint64) state.Change {
		return state.Change{Kind: state.MessagePut, QueueID: q, Message: &state.Message{Seq: seq}}
	}
	queue := func(id uint64, name string) state.Change {
		return state.Change{Kind: state.QueuePut, QueueID: id, Queue: &state.Queue{ID: id, Name: name}}
	}
	dedup := func(q uint64, key string) state.Change {
		return state.Change{Kind: state.WindowPut, QueueID: q, Window: state.WindowDedupByID, Dedup: &state.Dedup{Key: key}}
	}
	in := []state.Change{
		queue(1, "first"), msg(1, 1), msg(1, 2), queue(1, "second"),
		{Kind: state.MessageDelete, QueueID: 1, Seq: 1},
		dedup(1, "a"), dedup(1, "b"), dedup(1, "a"),
		queue(2, "gone"), msg(2, 1), {Kind: state.QueueDelete, QueueID: 2},
		{}, // a checkpoint's
	}
	var got []string
	for _, c := range coalesce([][]state.Change{in[:4], nil, in[4:]}) {
		switch c.Kind {
		case state.QueuePut:
			got = append(got, "queue "+c.Queue.Name)
		case state.QueueDelete:
			got = append(got, fmt.Sprint("delete queue ", c.QueueID))
		case state.MessagePut:
			got = append(got, fmt.Sprint("put ", c.QueueID, "/", c.Message.Seq))
		case state.MessageDelete:
			got = append(got, fmt.Sprint("delete ", c.QueueID, "/", c.Seq))
		case state.WindowPut:
			got = append(got, "dedup "+c.Dedup.Key)
		default:
			got = append(got, fmt.Sprint("kind ", c.Kind))
		}
	}
	want := "queue second, delete 1/1, put 1/2, dedup b, dedup a, delete queue 2"
	if strings.Join(got, ", ") != want {
		t.Errorf("coalesce =\n%s\nwant\n%s", strings.Join(got, ", "), want)
	}
}

// modelKey names the record a change sets, for coalesceModel.
type modelKey struct {
	kind      byte // 'm' message, 'q' queue, 's' scope, 't' task, 'h' header, 'w' window entry
	id, seq   uint64
	win       state.Window
	key, key2 string
}

// coalesceModel is the first coalesce, which kept a key per change and
// two passes over them: the property test holds coalesce to its answers.
// It returns what a checkpoint writes of the changes cs, the
// concatenation of segs: for each record, its last change, where the
// record first changed in cs: a queue made in cs
// then comes before its messages, a scope before its queues, whatever
// changed them later. The entries of a window come where they last
// changed instead, since a window is in the order of its puts (an entry
// put again moves to the end). A queue deleted in cs takes its messages'
// and entries' changes with it: they would name a queue the file may not
// have.
func coalesceModel(segs [][]state.Change) []state.Change {
	n := 0
	for _, seg := range segs {
		n += len(seg)
	}
	all := make([]*state.Change, 0, n) // pointers: a Change is some 200 bytes
	keys := make([]modelKey, 0, n)
	// Messages' changes are most of them, and a key of two numbers hashes
	// faster than a modelKey.
	lastMsg := make(map[msgKey]int, n)
	last := map[modelKey]int{}
	gone := map[uint64]bool{}
	for _, seg := range segs {
		for i := range seg {
			c := &seg[i]
			var k modelKey
			switch c.Kind {
			case 0:
				k = modelKey{kind: 0}
			case state.MessagePut:
				k = modelKey{kind: 'm', id: c.QueueID, seq: c.Message.Seq}
			case state.MessageDelete:
				k = modelKey{kind: 'm', id: c.QueueID, seq: c.Seq}
			case state.QueuePut:
				k = modelKey{kind: 'q', id: c.QueueID}
			case state.QueueDelete:
				k = modelKey{kind: 'q', id: c.QueueID}
				gone[c.QueueID] = true
			case state.ScopePut:
				k = modelKey{kind: 's', key: c.Scope.Account, key2: c.Scope.Region}
			case state.ScopeDelete:
				k = modelKey{kind: 's', key: c.Account, key2: c.Region}
			case state.TaskPut:
				k = modelKey{kind: 't', seq: c.Task.Seq}
			case state.TaskDelete:
				k = modelKey{kind: 't', seq: c.TaskSeq}
			case state.HeaderPut:
				k = modelKey{kind: 'h'}
			case state.WindowPut, state.WindowDelete:
				key, _ := c.EntryKey()
				k = modelKey{kind: 'w', id: c.QueueID, win: c.Window, key: key}
			}
			all = append(all, c)
			keys = append(keys, k)
			if k.kind == 'm' {
				lastMsg[msgKey{k.id, k.seq}] = len(all) - 1
			} else {
				last[k] = len(all) - 1
			}
		}
	}
	out := make([]state.Change, 0, len(lastMsg)+len(last))
	for i, k := range keys {
		switch {
		case k.kind == 0:
		case (k.kind == 'm' || k.kind == 'w') && gone[k.id]:
		case k.kind == 'm':
			mk := msgKey{k.id, k.seq}
			if j, ok := lastMsg[mk]; ok { // else written already
				delete(lastMsg, mk)
				out = append(out, *all[j])
			}
		case k.kind == 'w':
			if last[k] == i {
				out = append(out, *all[i])
			}
		default:
			if j, ok := last[k]; ok {
				delete(last, k)
				out = append(out, *all[j])
			}
		}
	}
	return out
}

// coalesce answers as coalesceModel does, for any changes: messages put,
// received and deleted, queues put and deleted, window entries put again,
// split into commits anywhere.
func TestCoalesceModel(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 60).Draw(t, "changes")
		all := make([]state.Change, 0, n)
		for range n {
			q := rapid.Uint64Range(1, 3).Draw(t, "queue")
			seq := rapid.Uint64Range(1, 5).Draw(t, "seq")
			key := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "key")
			win := state.Window(rapid.IntRange(0, 1).Draw(t, "window"))
			var c state.Change
			switch rapid.IntRange(0, 9).Draw(t, "kind") {
			case 0:
				c = state.Change{}
			case 1, 2:
				c = state.Change{Kind: state.MessagePut, QueueID: q, Message: &state.Message{Seq: seq, Body: fmt.Sprint(len(all))}}
			case 3:
				c = state.Change{Kind: state.MessageDelete, QueueID: q, Seq: seq}
			case 4:
				c = state.Change{Kind: state.QueuePut, QueueID: q, Queue: &state.Queue{ID: q, Name: fmt.Sprint(len(all))}}
			case 5:
				c = state.Change{Kind: state.QueueDelete, QueueID: q}
			case 6:
				c = state.Change{Kind: state.WindowPut, QueueID: q, Window: win, Dedup: &state.Dedup{Key: key, MessageID: fmt.Sprint(len(all))}}
			case 7:
				c = state.Change{Kind: state.WindowDelete, QueueID: q, Window: win, Key: key}
			case 8:
				c = state.Change{Kind: state.TaskPut, Task: &state.Task{Seq: seq, Status: fmt.Sprint(len(all))}}
			case 9:
				c = state.Change{Kind: state.HeaderPut, Now: int64(len(all))}
			}
			all = append(all, c)
		}
		cuts := rapid.SliceOfN(rapid.IntRange(0, len(all)), 0, 4).Draw(t, "cuts")
		slices.Sort(cuts)
		var segs [][]state.Change
		from := 0
		for _, c := range cuts {
			segs = append(segs, all[from:c])
			from = c
		}
		segs = append(segs, all[from:])
		got := []state.Change{}
		for _, c := range coalesce(segs) {
			got = append(got, *c)
		}
		if want := coalesceModel(segs); !reflect.DeepEqual(got, append([]state.Change{}, want...)) {
			t.Fatalf("coalesce =\n%+v\nwant\n%+v", got, want)
		}
	})
}

// BenchmarkCoalesce is a checkpoint's coalesce over the load test's
// second: each message sent, received and deleted, each call rewriting its
// queue's record.
func BenchmarkCoalesce(b *testing.B) {
	const msgs = 20000
	var segs [][]state.Change
	q := &state.Queue{ID: 1, Name: "load"}
	for i := uint64(0); i < msgs; i += 10 {
		for _, kind := range []state.Kind{state.MessagePut, state.MessagePut, state.MessageDelete} {
			seg := make([]state.Change, 0, 11)
			for seq := i; seq < i+10; seq++ {
				if kind == state.MessageDelete {
					seg = append(seg, state.Change{Kind: kind, QueueID: 1, Seq: seq})
				} else {
					seg = append(seg, state.Change{Kind: kind, QueueID: 1, Message: &state.Message{Seq: seq}})
				}
			}
			seg = append(seg, state.Change{Kind: state.QueuePut, QueueID: 1, Queue: q})
			segs = append(segs, seg)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		coalesce(segs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/msgs, "ns/msg")
}
