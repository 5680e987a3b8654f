package state

import (
	"reflect"
	"testing"
)

func TestApply(t *testing.T) {
	t.Parallel()
	base := func() *World {
		return &World{Scopes: []Scope{{Account: "0", Region: "r", Queues: []Queue{{ID: 1, Messages: []Message{{Seq: 1}, {Seq: 3}}}}}}, Tasks: []Task{}}
	}
	tests := []struct {
		name   string
		reason string
		cs     []Change
		want   func(w *World)
	}{
		{"message put inserts in seq order", "Export lists messages by Seq", []Change{{Kind: MessagePut, QueueID: 1, Message: &Message{Seq: 2, Body: "b"}}},
			func(w *World) { w.Scopes[0].Queues[0].Messages = []Message{{Seq: 1}, {Seq: 2, Body: "b"}, {Seq: 3}} }},
		{"message put replaces", "a receive rewrites the whole message", []Change{{Kind: MessagePut, QueueID: 1, Message: &Message{Seq: 3, Serial: 1}}},
			func(w *World) { w.Scopes[0].Queues[0].Messages[1].Serial = 1 }},
		{"last message delete leaves nil", "Export has nil for an empty queue", []Change{{Kind: MessageDelete, QueueID: 1, Seq: 1}, {Kind: MessageDelete, QueueID: 1, Seq: 3}},
			func(w *World) { w.Scopes[0].Queues[0].Messages = nil }},
		{"queue put keeps messages", "a QueuePut carries no messages", []Change{{Kind: QueuePut, QueueID: 1, Queue: &Queue{ID: 1, Name: "n"}}},
			func(w *World) { w.Scopes[0].Queues[0].Name = "n" }},
		{"new queue in id order", "Export lists a scope's queues by id", []Change{{Kind: QueuePut, Account: "0", Region: "r", QueueID: 0, Queue: &Queue{ID: 0}}},
			func(w *World) { w.Scopes[0].Queues = append([]Queue{{ID: 0}}, w.Scopes[0].Queues...) }},
		{"queue delete", "its messages go with it", []Change{{Kind: QueueDelete, QueueID: 1}},
			func(w *World) { w.Scopes[0].Queues = nil }},
		{"scope after the root by account", "Export lists the root first, then by account and region", []Change{{Kind: ScopePut, Scope: &Scope{Account: "1", Region: "a"}}, {Kind: ScopePut, Scope: &Scope{Account: "00", Region: "z"}}},
			func(w *World) {
				w.Scopes = append(w.Scopes, Scope{Account: "00", Region: "z"}, Scope{Account: "1", Region: "a"})
			}},
		{"scope delete", "Release forgets the namespace", []Change{{Kind: ScopePut, Scope: &Scope{Account: "1", Region: "a"}}, {Kind: ScopeDelete, Account: "1", Region: "a"}},
			func(w *World) {}},
		{"tasks by seq", "Export lists tasks in start order", []Change{{Kind: TaskPut, Task: &Task{Seq: 2}}, {Kind: TaskPut, Task: &Task{Seq: 1}}, {Kind: TaskPut, Task: &Task{Seq: 2, Moved: 1}}, {Kind: TaskDelete, TaskSeq: 1}},
			func(w *World) { w.Tasks = []Task{{Seq: 2, Moved: 1}} }},
		{"header", "ids never repeat", []Change{{Kind: HeaderPut, Now: 5, NextQueueID: 7, NextTaskSeq: 2}},
			func(w *World) { w.Now, w.NextQueueID, w.NextTaskSeq = 5, 7, 2 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, want := base(), base()
			tt.want(want)
			if err := Apply(got, tt.cs); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(want, got) {
				t.Errorf("%s:\nwant %+v\ngot  %+v", tt.reason, want, got)
			}
		})
	}
	t.Run("unknown queue fails", func(t *testing.T) {
		t.Parallel()
		if err := Apply(base(), []Change{{Kind: MessagePut, QueueID: 9, Message: &Message{}}}); err == nil {
			t.Error("a record of a queue the World lacks applied without error: a lost record must show")
		}
	})
}
