package durable

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"pgregory.net/rapid"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/state"
	"github.com/sqsq/sqsq/internal/testsize"
)

// crashCopy copies the store's files into a new directory as a crash
// would leave them at this instant: under s.mu, so that no commit or
// checkpoint is half written by the copy itself.
func crashCopy(t fataler, s *Store) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sqsq-crash-copy")
	if err != nil {
		t.Fatalf("%v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, name := range []string{FileName, walName} {
		b, err := os.ReadFile(filepath.Join(s.dir, name))
		if err != nil {
			t.Fatalf("%v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatalf("%v", err)
		}
	}
	return dir
}

// After any sequence of calls, each followed by Sync, the files as a crash
// would leave them (the log not yet written into sqsq.db) open to the
// state of the endpoint: Open replays the log.
func TestLogReplay(t *testing.T) {
	t.Parallel()
	runs, limit := 0, testsize.Scale(25, 1<<30) // each call commits with an fdatasync
	rapid.Check(t, func(t *rapid.T) {
		if runs++; runs > limit {
			return
		}
		dir, err := os.MkdirTemp("", "sqsq-replay")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		s, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		clk := clock.NewMock()
		clk.Set(time.Unix(1_700_000_000, 0))
		b := sqsq.NewBroker(sqsq.WithClock(clk), s.Journal())
		defer b.Close()
		if err := s.Attach(b); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		names := []string{"a", "b", "c.fifo"}
		var handles []string
		n := 0
		for range rapid.IntRange(1, 40).Draw(t, "calls") {
			name := rapid.SampledFrom(names).Draw(t, "queue")
			q, err := b.GetQueue(ctx, name)
			switch op := rapid.IntRange(0, 6).Draw(t, "op"); {
			case err != nil || op == 0:
				in := sqsq.CreateQueueInput{QueueName: name}
				if strings.HasSuffix(name, ".fifo") {
					in.Attributes.FifoQueue = sqsq.Some(true)
				}
				_, _ = b.CreateQueue(ctx, in)
			case op == 1:
				_ = b.DeleteQueue(ctx, name)
			case op <= 3:
				n++
				in := sqsq.SendInput{MessageBody: fmt.Sprint("m", n)}
				if strings.HasSuffix(name, ".fifo") {
					in.MessageGroupId, in.MessageDeduplicationId = "g", fmt.Sprint("d", n%5)
				}
				_, _ = q.Send(ctx, in)
			case op == 4:
				got, _ := q.Receive(ctx, sqsq.ReceiveInput{MaxNumberOfMessages: 3})
				for _, m := range got {
					handles = append(handles, m.ReceiptHandle)
				}
			case op == 5 && len(handles) > 0:
				_ = q.Delete(ctx, handles[rapid.IntRange(0, len(handles)-1).Draw(t, "handle")])
			default:
				clk.Add(time.Duration(rapid.IntRange(1, 400).Draw(t, "seconds")) * time.Second)
			}
			want, err := state.Export(b) // brings queues up to date: its changes count too
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			if rapid.IntRange(0, 4).Draw(t, "crash") != 0 {
				continue
			}
			copied := crashCopy(t, s)
			c, err := Open(copied)
			if err != nil {
				os.RemoveAll(copied)
				t.Fatalf("Open after a crash: %v", err)
			}
			got, err := c.Load()
			c.Close()
			os.RemoveAll(copied)
			if err != nil {
				t.Fatalf("Load after a crash: %v", err)
			}
			got.Now = want.Now
			checkWorld(t, want, got)
		}
	})
}

// A commit cut short by a crash (the last frame incomplete, or its
// checksum wrong) is dropped at Open, which says so; the commits before it
// are there. A whole frame that does not decode is damage: Open refuses
// it, naming the log, and with Recover moves it aside.
func TestLogTail(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	b := attached(t, s)
	ctx := context.Background()
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q"})
	if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: "kept"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	end, epoch := int(s.wal.size), s.wal.epoch
	s.mu.Unlock()
	dir := crashCopy(t, s)
	defer os.RemoveAll(dir)
	wal := filepath.Join(dir, walName)
	file, err := os.ReadFile(wal)
	if err != nil || end <= walHeader {
		t.Fatalf("the log holds %d bytes (%v); want the commits not yet written into the file", end, err)
	}
	good := file[:end] // the frames, without the end mark
	open := func(log []byte, opts ...Option) (*state.World, string, error) {
		if err := os.WriteFile(wal, log, 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Open(dir, opts...)
		if err != nil {
			return nil, "", err
		}
		defer c.Close()
		w, err := c.Load()
		return w, c.Recovered(), err
	}
	messages := func(w *state.World) int { return len(w.Scopes[0].Queues[0].Messages) }
	cat := func(bs ...[]byte) []byte { return slices.Concat(append([][]byte{good}, bs...)...) }

	if w, note, err := open(cat(make([]byte, frameHeader), []byte("what an earlier epoch left"))); err != nil || messages(w) != 1 || note != "" {
		t.Errorf("frames, the end mark, then anything: %v, %q; want the message and no note", err, note)
	}
	badSum := frame(epoch, []byte{0})
	badSum[frameHeader-1]++
	for _, tc := range []struct {
		name string
		tail []byte
	}{
		{"a header cut short", []byte{1, 2, 3}},
		{"a payload cut short", frame(epoch, []byte{1, 2, 3, 4})[:frameHeader+2]},
		{"a wrong checksum", badSum},
		{"a frame of the epoch before", frame(epoch-1, []byte{0})},
	} {
		w, note, err := open(cat(tc.tail, make([]byte, frameHeader)))
		if err != nil || messages(w) != 1 || !strings.Contains(note, "a commit cut short by a crash") {
			t.Errorf("%s after the frames: %v, %q; want the message kept and a note", tc.name, err, note)
		}
	}

	// A frame whose checksum is right but whose changes are not.
	payload := []byte{0, 99} // the instant 0, then an unknown change kind
	bad := cat(frame(epoch, payload))
	_, _, err = open(bad)
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), walName) {
		t.Fatalf("Open with a damaged log = %v; want ErrDamaged naming %s", err, walName)
	}
	_, note, err := open(bad, Recover())
	if err != nil || !strings.Contains(note, "moved it to") {
		t.Fatalf("Open with Recover = %v, %q; want the log moved aside and the file as it was", err, note)
	}
}

// frame builds a log frame of epoch around payload, without its end mark.
func frame(epoch uint32, payload []byte) []byte {
	e := enc(make([]byte, frameHeader))
	e = append(e, payload...)
	e.seal(epoch)
	return e[:len(e)-frameHeader]
}

// The cut of a checkpoint writes the next epoch into the header and keeps
// the file's blocks; the frames of the epoch before, which the file holds
// and later changes may have replaced, are never read again, even where a
// crash left them whole right after the header. An idle or closed log
// gives its blocks back.
func TestLogEpochs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, walName)
	w, cs, _, note, err := openWAL(path)
	if err != nil || len(cs) != 0 || note != "" {
		t.Fatalf("a new log: %v, %d changes, %q", err, len(cs), note)
	}
	put := func(body string) []state.Change {
		return []state.Change{{Kind: state.MessagePut, QueueID: 1, Message: &state.Message{Seq: 1, Body: body}}}
	}
	if err := w.append(put("old"), 1); err != nil {
		t.Fatal(err)
	}
	if err := w.reset(); err != nil {
		t.Fatal(err)
	}
	fi, _ := w.f.Stat()
	if fi.Size() <= walHeader+frameHeader {
		t.Errorf("after the cut the log has %d bytes; want the frames' blocks kept", fi.Size())
	}
	// What a crash that kept the new epoch's header, and not the end mark
	// after it, leaves: the old frame whole behind the header.
	if w.epoch != 2 {
		t.Fatalf("epoch %d after one cut of a new log; want 2", w.epoch)
	}
	w.close()
	oldFrame := frame(1, encodedPayload(t, put("old"), 1))
	data := make([]byte, walHeader)
	copy(data, walMagic)
	binary.LittleEndian.PutUint32(data[len(walMagic):], 2)
	data = append(data, oldFrame...)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	w, cs, _, note, err = openWAL(path)
	if err != nil || len(cs) != 0 || !strings.Contains(note, "cut short") {
		t.Fatalf("a frame of epoch 1 in a log of epoch 2: %v, %d changes, %q; want none read, and a note", err, len(cs), note)
	}
	if err := w.append(put("new"), 2); err != nil {
		t.Fatal(err)
	}
	w.close()
	w, cs, _, note, err = openWAL(path)
	if err != nil || len(cs) != 1 || cs[0].Message.Body != "new" || note != "" {
		t.Fatalf("reopened: %v, %v, %q; want the new frame only", err, cs, note)
	}
	defer w.close()
	if err := w.reset(); err != nil {
		t.Fatal(err)
	}
	if err := w.shrink(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := w.f.Stat(); fi.Size() != walHeader+frameHeader {
		t.Errorf("shrunk log: %d bytes, want %d", fi.Size(), walHeader+frameHeader)
	}
}

// encodedPayload is the payload of a frame of cs made at now.
func encodedPayload(t *testing.T, cs []state.Change, now int64) []byte {
	t.Helper()
	var e enc
	e.varint(now)
	for i := range cs {
		e.change(&cs[i])
	}
	return e
}

// A log of format 1, which a crash of an earlier sqsq left, is read, and
// begun again in this format.
func TestLogFormat1(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), walName)
	p := encodedPayload(t, []state.Change{{Kind: state.MessageDelete, QueueID: 1, Seq: 7}}, 5)
	data := slices.Clone(walMagicV1)
	data = binary.LittleEndian.AppendUint32(data, uint32(len(p)))
	data = binary.LittleEndian.AppendUint32(data, crc32.Checksum(p, crcTable))
	data = append(data, p...)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	w, cs, now, note, err := openWAL(path)
	if err != nil || len(cs) != 1 || cs[0].Seq != 7 || now != 5 || note != "" {
		t.Fatalf("a format 1 log: %v, %v, %d, %q; want its one change", err, cs, now, note)
	}
	defer w.close()
	if err := w.reset(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !bytes.HasPrefix(b, walMagic) {
		t.Errorf("after the cut the log begins %q; want this format's header", b[:min(len(b), 12)])
	}
}

// A frame holds each queue's last record once, where its first was: the
// queue exists before its messages, and as it was at the end.
func TestFrameQueueOnce(t *testing.T) {
	t.Parallel()
	w := newLog(t)
	queue := func(id uint64, name string) state.Change {
		return state.Change{Kind: state.QueuePut, QueueID: id, Queue: &state.Queue{ID: id, Name: name}}
	}
	in := []state.Change{
		queue(1, "a"), {Kind: state.MessagePut, QueueID: 1, Message: &state.Message{Seq: 1}},
		queue(2, "x"), queue(1, "b"), {Kind: state.MessageDelete, QueueID: 1, Seq: 1}, queue(1, "c"),
	}
	for range 2 { // two frames: each holds its own
		if err := w.append(in, 1); err != nil {
			t.Fatal(err)
		}
	}
	w.close()
	r, cs, _, _, err := openWAL(w.path)
	if err != nil {
		t.Fatal(err)
	}
	r.close()
	var got []string
	for _, c := range cs {
		switch c.Kind {
		case state.QueuePut:
			got = append(got, "queue "+c.Queue.Name)
		default:
			got = append(got, fmt.Sprint("kind ", c.Kind))
		}
	}
	want := "queue c, kind 1, queue x, kind 2"
	if s := strings.Join(got, ", "); s != want+", "+want {
		t.Errorf("read back: %s\nwant twice: %s", s, want)
	}
}

// A header cut short by a crash as the log was made holds no frame: the
// log opens empty, as a new one.
func TestLogHeaderCutShort(t *testing.T) {
	t.Parallel()
	for _, data := range [][]byte{walMagic[:4], walMagic, append(slices.Clone(walMagic), 1, 0), make([]byte, 7)} {
		path := filepath.Join(t.TempDir(), walName)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		w, cs, _, note, err := openWAL(path)
		if err != nil || len(cs) != 0 || note != "" {
			t.Errorf("a log of %q: %v, %d changes, %q; want it empty", data, err, len(cs), note)
			continue
		}
		w.close()
		if b, _ := os.ReadFile(path); !logEmpty(b) {
			t.Errorf("a log of %q became %q; want a header and the end mark", data, b)
		}
	}
}

// A closed Store's log is its header and end mark: the blocks of its busy
// epochs go back to the disk.
func TestLogShrinksAtClose(t *testing.T) {
	t.Parallel()
	s, dir := setup(t)
	b := attached(t, s)
	ctx := context.Background()
	q, _ := b.CreateQueue(ctx, sqsq.CreateQueueInput{QueueName: "q"})
	for range 20 {
		if _, err := q.Send(ctx, sqsq.SendInput{MessageBody: strings.Repeat("x", 4096)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, walName))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != walHeader+frameHeader {
		t.Fatalf("the log after Close: %d bytes; want %d", fi.Size(), walHeader+frameHeader)
	}
}

// A message's record after its first in an epoch does not write its body
// again (format 3's logMessageAgain), and reads back whole; a changed body,
// a message put again after its delete, and the first record after a cut
// are written whole.
func TestLogBodyOnce(t *testing.T) {
	t.Parallel()
	w := newLog(t)
	path := w.path
	body := func(c byte) string { return strings.Repeat(string(c), 1024) }
	put := func(seq uint64, b string, received int32) state.Change {
		return state.Change{Kind: state.MessagePut, QueueID: 1, Message: &state.Message{Seq: seq, ID: fmt.Sprint("m", seq), Body: b, ReceiveCount: received}}
	}
	frames := [][]state.Change{
		{put(1, body('a'), 0)},
		{put(1, body('a'), 1), put(2, body('b'), 0), put(2, body('b'), 1)}, // again, in another frame and in the same one
		{put(1, body('c'), 2)}, // another body
		{{Kind: state.MessageDelete, QueueID: 1, Seq: 2}, put(2, body('b'), 3)}, // after its delete
	}
	sizes := []int64{}
	for _, f := range frames {
		sizes = append(sizes, appended(t, w, f))
	}
	// Whole bodies: one, one (b), one (c), one (b again).
	for i, n := range sizes {
		if n < 1024 || n > 1024+200 {
			t.Errorf("frame %d took %d bytes; want one body and the records", i, n)
		}
	}
	w.close()
	w, cs, _, note, err := openWAL(path)
	if err != nil || note != "" {
		t.Fatalf("reading it back: %v, %q", err, note)
	}
	defer w.close()
	var got []string
	for _, c := range cs {
		if c.Kind == state.MessagePut {
			got = append(got, fmt.Sprintf("%d:%c%d/%d", c.Message.Seq, c.Message.Body[0], len(c.Message.Body), c.Message.ReceiveCount))
		} else {
			got = append(got, fmt.Sprint("delete ", c.Seq))
		}
	}
	if want := "1:a1024/0 1:a1024/1 2:b1024/0 2:b1024/1 1:c1024/2 delete 2 2:b1024/3"; strings.Join(got, " ") != want {
		t.Errorf("read back %q; want %q", strings.Join(got, " "), want)
	}
	// After the cut, the bodies of the last epoch are not on the log.
	if err := w.reset(); err != nil {
		t.Fatal(err)
	}
	if n := appended(t, w, []state.Change{put(1, body('c'), 3)}); n < 1024 {
		t.Errorf("the first record after the cut took %d bytes; want its body", n)
	}
}

// A frame that fails to be written leaves no body for a later record to
// refer to: the next record of the message writes its body.
func TestLogBodyAfterFailure(t *testing.T) {
	t.Parallel()
	w := newLog(t)
	put := state.Change{Kind: state.MessagePut, QueueID: 1, Message: &state.Message{Seq: 1, Body: strings.Repeat("x", 1024)}}
	f := w.f
	ro, err := os.Open(w.path) // writes to it fail
	if err != nil {
		t.Fatal(err)
	}
	w.f = ro
	if err := w.append([]state.Change{put}, 1); err == nil {
		t.Fatal("a write to a read-only file succeeded")
	}
	ro.Close()
	w.f = f
	if n := appended(t, w, []state.Change{put}); n < 1024 {
		t.Errorf("the record after a failed frame took %d bytes; want its body", n)
	}
}

// A record without its body that refers to no record before it is a
// damaged log, not a message with an empty body.
func TestLogBodyMissing(t *testing.T) {
	t.Parallel()
	w := newLog(t)
	path := w.path
	w.buf = append(w.buf[:0], make([]byte, frameHeader)...)
	w.buf.varint(1)
	w.buf.messageAgain(&state.Change{Kind: state.MessagePut, QueueID: 1, Message: &state.Message{Seq: 9}})
	w.buf.seal(w.epoch)
	if _, err := w.f.WriteAt(w.buf, w.size); err != nil {
		t.Fatal(err)
	}
	w.close()
	if w, _, _, _, err := openWAL(path); !errors.Is(err, ErrDamaged) {
		if w != nil {
			w.close()
		}
		t.Fatalf("opening a log whose record refers to a body it lacks: %v; want ErrDamaged", err)
	}
}

// A log of format 2 (the same frames, every body whole) is read, and the
// cut begins it again in this format.
func TestLogFormat2(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), walName)
	data := binary.LittleEndian.AppendUint32(slices.Clone(walMagicV2), 4) // epoch 4
	var e enc
	e = append(e, make([]byte, frameHeader)...)
	e.varint(5)
	e.change(&state.Change{Kind: state.MessagePut, QueueID: 1, Message: &state.Message{Seq: 7, Body: "hello"}})
	e.seal(4)
	if err := os.WriteFile(path, append(data, e...), 0o600); err != nil {
		t.Fatal(err)
	}
	w, cs, now, note, err := openWAL(path)
	if err != nil || len(cs) != 1 || cs[0].Message.Body != "hello" || now != 5 || note != "" {
		t.Fatalf("a format 2 log: %v, %v, %d, %q; want its one change", err, cs, now, note)
	}
	defer w.close()
	if w.bodies != nil {
		t.Error("a log of format 2 would be written on in format 3 before its cut")
	}
	if err := w.reset(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !bytes.HasPrefix(b, walMagic) {
		t.Errorf("after the cut the log begins %q; want this format's header", b[:min(len(b), 12)])
	}
}

// appended appends one frame of changes to w and returns the bytes it took.
func appended(t *testing.T, w *wal, changes []state.Change) int64 {
	t.Helper()
	before := w.size
	if err := w.append(changes, 1); err != nil {
		t.Fatal(err)
	}
	return w.size - before
}
