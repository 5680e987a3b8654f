package durable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/sqsq/sqsq/internal/state"
)

// The write-ahead log, dir/sqsq.wal. A commit appends one frame holding
// its changes to the log and syncs it: one write and one fdatasync, where
// a bbolt transaction takes a write per page and two fdatasyncs (some
// 0.3 ms of CPU against 0.1 ms on the project's machine). The changes
// reach sqsq.db later, in a checkpoint: one bbolt transaction for many
// commits, after each change that a later one of the same record replaces
// is dropped, so that a message sent, received and deleted between two
// checkpoints costs sqsq.db nothing. Then the log is cut back to its
// header. Open replays a log it finds into sqsq.db and cuts it: every
// change sets a record to what it became, so a change replayed twice (a
// crash between a checkpoint's transaction and the cut) is harmless.
//
// The log: a header, then frames. The header is walMagic and the log's
// epoch (4 bytes, little-endian), which each checkpoint's cut increments.
// A frame is the length of its payload (4 bytes, little-endian), the epoch
// it was written in, the CRC-32C of those 8 bytes and the payload, and the
// payload: the clock's instant of the commit (a varint), then the changes.
// Each frame is written with 12 zero bytes after it, the end mark, which
// the next frame overwrites.
//
// The cut does not truncate the file: it writes the header with the next
// epoch and an end mark after it, and the next commits write over the
// frames of the last epoch. On the project's machine (ext4) a write and
// fdatasync into blocks the file already has costs a third less CPU than
// one that grows the file, whose fdatasync must also commit the new size
// and blocks (measured: 2,000 syncs of 20 KB frames, 226-263 µs of CPU
// each against 296-440 µs). The log keeps the size of its largest epoch
// while the server is busy, and is cut to its header when it is idle or
// closes (shrink).
//
// Reading stops at the end mark. Commits append one after the other, each
// synced before the next, so anything else where a frame should be is the
// last commit, which did not finish (no caller was told it was durable),
// or what a crash left of the frames of an earlier epoch after it: a
// length past the end, a bad checksum or another epoch. Open drops it,
// and notes it. The epoch is what keeps a frame of an earlier epoch, whose
// changes the file holds and newer ones may have replaced, from being
// read again after a crash that kept the end of a new frame but not its
// start.
//
// A message is sent, then received: two records of it, which differ in
// their receive count and deadlines but not in their body. In format 3 a
// record whose body is that of the message's record before it in the
// same epoch says so (kind logMessageAgain) instead of writing the body
// again: a 1 KiB message sent, received and deleted writes 1.1 KB to the
// log instead of 2.2, and the commits encode, checksum, write and sync
// half the bytes (in the HTTP load test at 16 workers, 1 to 3 % less CPU
// a message, about the runs' spread).
// The log keeps the bodies it may refer to (wal.bodies) until the epoch
// ends; a frame that fails to be written makes it forget them all, so
// that no record refers to a frame that is not on disk.
//
// Formats 1 (before epochs: 8-byte frame headers, the file cut at each
// checkpoint) and 2 (epochs, every body written whole) are still read, so
// that a log a crash left is not lost by an upgrade; Open writes their
// changes into the file and begins the log again in this format.

const walName = "sqsq.wal"

// walMagic begins the log; its last byte is the format.
var walMagic = []byte("sqsq-wal\x03")

// walMagicV2 began the logs of format 2, framed as format 3's.
var walMagicV2 = []byte("sqsq-wal\x02")

// walMagicV1 began the logs of format 1.
var walMagicV1 = []byte("sqsq-wal\x01")

const (
	walHeader     = 9 + 4 // walMagic, epoch
	frameHeader   = 12    // length, epoch, checksum
	frameHeaderV1 = 8     // length, checksum
)

// wal is the open log. Its methods run in the committer, or in Open.
type wal struct {
	f     *os.File
	path  string
	epoch uint32
	v1    bool  // a log of format 1, read, not cut yet
	size  int64 // the bytes of the header and the frames of this epoch
	buf   enc   // the frame being written, reused
	// bodies are the bodies of the messages whose last record in this
	// epoch is on disk, which a record may refer to (logMessageAgain); nil
	// until the log is in this format.
	bodies map[msgKey]string
}

// logMessageAgain is the kind, in the log only, of a MessagePut written
// without its body: that of the message's record before it in the log.
// The kinds of state.Change are below it.
const logMessageAgain = 0x80

// openWAL opens or creates the log at path and returns it with the changes
// of its whole frames (nil if none) and the instant of the last one, and a
// note if a damaged frame was dropped.
func openWAL(path string) (*wal, []state.Change, int64, string, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, 0, "", err
	}
	w := &wal{f: f, path: path}
	changes, now, note, err := w.read()
	if err != nil {
		f.Close()
		return nil, nil, 0, "", err
	}
	return w, changes, now, note, nil
}

// read reads the log from its start, as openWAL.
func (w *wal) read() ([]state.Change, int64, string, error) {
	data, err := io.ReadAll(w.f)
	if err != nil {
		return nil, 0, "", err
	}
	var v1, old bool
	begins := func(magic []byte) bool { return bytes.HasPrefix(magic, data[:min(len(data), len(magic))]) }
	switch {
	case len(data) < walHeader && (allZero(data) || begins(walMagic) || begins(walMagicV2)):
		// Empty, or a header cut short by a crash as the log was made:
		// no frame in it.
		return nil, 0, "", w.reset()
	case bytes.HasPrefix(data, walMagicV1):
		v1 = true
	case len(data) >= walHeader && bytes.HasPrefix(data, walMagicV2):
		old = true
	case len(data) < walHeader || !bytes.HasPrefix(data, walMagic):
		return nil, 0, "", &storeError{kind: ErrFormat, msg: fmt.Sprintf(
			"durable: %s is not a log of this sqsq's format; use the sqsq that wrote it, or another -data directory", w.path)}
	}
	var changes []state.Change
	var now int64
	note := ""
	bodies := map[msgKey]string{}
	off := walHeader
	if v1 {
		off = len(walMagicV1)
	} else {
		w.epoch = binary.LittleEndian.Uint32(data[len(walMagic):])
	}
	for off < len(data) {
		payload, n, st := w.frameAt(data[off:], v1)
		if st == frameTorn {
			note = fmt.Sprintf("%s: dropped what followed byte %d, a commit cut short by a crash", w.path, off)
		}
		if st != frameWhole {
			break
		}
		t, cs, err := decodeFrame(payload, bodies)
		if err != nil { // a whole frame with a good checksum: written by a bug, not cut by a crash
			return nil, 0, "", damagedLog(w.path, fmt.Errorf("frame at byte %d: %w", off, err))
		}
		changes, now = append(changes, cs...), t
		off += n
	}
	w.size = int64(off)
	if !v1 && !old {
		w.bodies = bodies
		return changes, now, note, nil
	}
	// Begun again in this format by the cut, once the changes are in the file.
	w.v1 = v1
	if len(changes) == 0 {
		return nil, 0, note, w.reset()
	}
	return changes, now, note, nil
}

// What frameAt finds where a frame may begin.
const (
	frameWhole = iota // a frame, whole
	frameEnd          // the end mark, or nothing
	frameTorn         // what a crash left: a frame cut short, or of an earlier epoch
)

// frameAt reads the frame at the start of rest, in format 1 if v1: its
// payload and its length with its header.
func (w *wal) frameAt(rest []byte, v1 bool) (payload []byte, n int, st int) {
	head := frameHeader
	if v1 {
		head = frameHeaderV1
	}
	switch {
	case len(rest) < head && allZero(rest):
		return nil, 0, frameEnd
	case len(rest) < head:
		return nil, 0, frameTorn
	case !v1 && allZero(rest[:head]):
		return nil, 0, frameEnd
	}
	size := int(binary.LittleEndian.Uint32(rest))
	if size > len(rest)-head || !v1 && binary.LittleEndian.Uint32(rest[4:]) != w.epoch {
		return nil, 0, frameTorn
	}
	payload = rest[head : head+size]
	ok := frameSum(rest[:8], payload) == binary.LittleEndian.Uint32(rest[8:])
	if v1 {
		ok = crc32.Checksum(payload, crcTable) == binary.LittleEndian.Uint32(rest[4:])
	}
	if !ok {
		return nil, 0, frameTorn
	}
	return payload, head + size, frameWhole
}

// logEmpty reports whether data, a log's bytes, holds no frame to read.
func logEmpty(data []byte) bool {
	if bytes.HasPrefix(data, walMagicV1) {
		return len(data) == len(walMagicV1)
	}
	return bytes.HasPrefix(data, walMagic) && len(data) >= walHeader+frameHeader && allZero(data[walHeader:walHeader+frameHeader])
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// frameSum is a frame's checksum: of its length and epoch, and payload.
func frameSum(head, payload []byte) uint32 {
	return crc32.Update(crc32.Checksum(head, crcTable), crcTable, payload)
}

// append writes one frame of changes made at now and syncs the log. On
// failure the frame does not count: the next one is written in its place.
func (w *wal) append(changes []state.Change, now int64) error {
	w.buf = append(w.buf[:0], make([]byte, frameHeader)...)
	w.buf.varint(now)
	// Nearly every call changes its queue's record (its counters), and a
	// record is some 40 sorted strings and numbers: write each queue's last
	// record once, where its first was, as a checkpoint would (coalesce).
	// Queue ids never repeat, so no delete comes between two.
	lastQueue := map[uint64]int{}
	for i := range changes {
		if changes[i].Kind == state.QueuePut {
			lastQueue[changes[i].QueueID] = i
		}
	}
	for i := range changes {
		c := &changes[i]
		switch c.Kind {
		case state.QueuePut:
			j, ok := lastQueue[c.QueueID]
			if !ok {
				continue // written already
			}
			delete(lastQueue, c.QueueID)
			c = &changes[j]
		case state.MessagePut:
			if w.bodies == nil {
				break
			}
			k := msgKey{c.QueueID, c.Message.Seq}
			if b, ok := w.bodies[k]; ok && b == c.Message.Body {
				w.buf.messageAgain(c)
				continue
			}
			w.bodies[k] = c.Message.Body
		case state.MessageDelete:
			delete(w.bodies, msgKey{c.QueueID, c.Seq})
		}
		w.buf.change(c)
	}
	w.buf.seal(w.epoch)
	_, err := w.f.WriteAt(w.buf, w.size)
	if err == nil {
		err = fdatasync(w.f)
	}
	if err != nil {
		// A frame written whole but not synced may be on disk, and then
		// read back: its changes are the broker's, and the committer
		// writes them again at its next commit, so reading them is
		// harmless. Mark the end before it if the disk lets us.
		_, _ = w.f.WriteAt(make([]byte, frameHeader), w.size)
		clear(w.bodies) // it may have noted bodies that are not on disk
		return err
	}
	w.size += int64(len(w.buf) - frameHeader) // the end mark is not part of the log
	if cap(w.buf) > 1<<20 {
		w.buf = nil
	}
	return nil
}

// seal fills in the header of the frame that e holds (reserved by its
// first frameHeader bytes) for epoch, and appends the end mark.
func (e *enc) seal(epoch uint32) {
	b := *e
	binary.LittleEndian.PutUint32(b, uint32(len(b)-frameHeader))
	binary.LittleEndian.PutUint32(b[4:], epoch)
	binary.LittleEndian.PutUint32(b[8:], frameSum(b[:8], b[frameHeader:]))
	*e = append(b, make([]byte, frameHeader)...)
}

// reset cuts the log back to its header, durably: the next epoch, and the
// end mark. The file keeps its size (see above).
func (w *wal) reset() error {
	if w.v1 { // its frames would read as this format's
		if err := w.f.Truncate(0); err != nil {
			return err
		}
		w.v1 = false
	}
	h := make([]byte, walHeader+frameHeader)
	copy(h, walMagic)
	binary.LittleEndian.PutUint32(h[len(walMagic):], w.epoch+1)
	if _, err := w.f.WriteAt(h, 0); err != nil {
		return err
	}
	if err := fdatasync(w.f); err != nil {
		return err
	}
	w.epoch++
	w.size = walHeader
	w.bodies = map[msgKey]string{}
	return nil
}

// shrink gives back the disk space of an empty log's earlier frames.
func (w *wal) shrink() error {
	if w.size != walHeader {
		return nil
	}
	if fi, err := w.f.Stat(); err != nil || fi.Size() <= walHeader+frameHeader {
		return err
	}
	return w.f.Truncate(walHeader + frameHeader)
}

func (w *wal) close() error { return w.f.Close() }

// decodeFrame reads a frame's payload. bodies are those of the frames
// before it in the log (see logMessageAgain), which it updates.
func decodeFrame(p []byte, bodies map[msgKey]string) (int64, []state.Change, error) {
	d := dec{s: string(p), bodies: bodies}
	now := d.varint()
	var cs []state.Change
	for d.err == nil && d.i < len(d.s) {
		cs = append(cs, d.change())
	}
	return now, cs, d.done()
}

// change encodes one change of the journal.
func (e *enc) change(c *state.Change) {
	e.byte(byte(c.Kind))
	switch c.Kind {
	case state.MessagePut:
		e.uvarint(c.QueueID)
		e.uvarint(c.Message.Seq)
		e.message(c.Message)
	case state.MessageDelete:
		e.uvarint(c.QueueID)
		e.uvarint(c.Seq)
	case state.QueuePut:
		e.uvarint(c.QueueID)
		e.queue(c.Account, c.Region, c.Queue, 0, false, 0, 0)
	case state.QueueDelete:
		e.uvarint(c.QueueID)
	case state.ScopePut:
		e.scope(c.Scope, 0, false)
	case state.ScopeDelete:
		e.str(c.Account)
		e.str(c.Region)
	case state.TaskPut:
		e.task(c.Task)
	case state.TaskDelete:
		e.uvarint(c.TaskSeq)
	case state.HeaderPut:
		e.uvarint(c.NextQueueID)
		e.uvarint(c.NextTaskSeq)
	case state.WindowPut:
		e.uvarint(c.QueueID)
		e.byte(byte(c.Window))
		switch {
		case c.Dedup != nil:
			e.byte(1)
			e.str(c.Dedup.Key)
			e.dedup(0, c.Dedup)
		default:
			e.byte(2)
			e.str(c.Attempt.ID)
			e.attempt(0, c.Attempt)
		}
	case state.WindowDelete:
		e.uvarint(c.QueueID)
		e.byte(byte(c.Window))
		e.str(c.Key)
	}
}

// messageAgain encodes a MessagePut without its body (logMessageAgain).
func (e *enc) messageAgain(c *state.Change) {
	e.byte(logMessageAgain)
	e.uvarint(c.QueueID)
	e.uvarint(c.Message.Seq)
	e.str(c.Message.ID)
	e.messageRest(c.Message)
}

func (d *dec) change() state.Change {
	c := state.Change{Kind: state.Kind(d.byte())}
	switch c.Kind {
	case 0:
	case state.MessagePut:
		c.QueueID = d.uvarint()
		m := &state.Message{Seq: d.uvarint()}
		d.message(m)
		c.Message = m
		if d.bodies != nil {
			d.bodies[msgKey{c.QueueID, m.Seq}] = m.Body
		}
	case logMessageAgain:
		c.Kind, c.QueueID = state.MessagePut, d.uvarint()
		m := &state.Message{Seq: d.uvarint()}
		m.ID = d.str()
		d.messageRest(m)
		c.Message = m
		body, ok := d.bodies[msgKey{c.QueueID, m.Seq}]
		if !ok && d.err == nil {
			d.fail(fmt.Errorf("a record of message %d of queue %d without its body, and none before it", m.Seq, c.QueueID))
		}
		m.Body = body
	case state.MessageDelete:
		c.QueueID, c.Seq = d.uvarint(), d.uvarint()
		delete(d.bodies, msgKey{c.QueueID, c.Seq})
	case state.QueuePut:
		c.QueueID = d.uvarint()
		h := d.queue(c.QueueID)
		c.Account, c.Region, c.Queue = h.account, h.region, &h.q
	case state.QueueDelete:
		c.QueueID = d.uvarint()
	case state.ScopePut:
		s, _, _ := d.scope()
		c.Scope, c.Account, c.Region = &s, s.Account, s.Region
	case state.ScopeDelete:
		c.Account, c.Region = d.str(), d.str()
	case state.TaskPut:
		t := d.task()
		c.Task = &t
	case state.TaskDelete:
		c.TaskSeq = d.uvarint()
	case state.HeaderPut:
		c.NextQueueID, c.NextTaskSeq = d.uvarint(), d.uvarint()
	case state.WindowPut:
		c.QueueID, c.Window = d.uvarint(), state.Window(d.byte())
		switch d.byte() {
		case 1:
			_, x := d.dedup(d.str())
			c.Dedup = &x
		case 2:
			_, x := d.attempt(d.str())
			c.Attempt = &x
		default:
			d.fail(errors.New("a window entry of no known kind"))
		}
	case state.WindowDelete:
		c.QueueID, c.Window, c.Key = d.uvarint(), state.Window(d.byte()), d.str()
	default:
		d.fail(fmt.Errorf("unknown change kind %d", c.Kind))
	}
	return c
}
