package durable

import (
	"flag"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"path/filepath"

	"github.com/benbjohnson/clock"

	"github.com/sqsq/sqsq"
	"github.com/sqsq/sqsq/internal/racexit"
	"github.com/sqsq/sqsq/internal/state"
	"github.com/sqsq/sqsq/internal/testsize"
)

// childEnv names the role of the test binary started again as a child
// process (see child_test.go); empty in the parent.
const childEnv = "SQSQ_DURABLE_CHILD"

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(runChild(role))
	}
	// The quick suite draws fewer Worlds and damages fewer files; the long
	// one (SQSQ_LONG=1) all of them.
	flag.Parse()
	testsize.QuickFlag("rapid.checks", "20", "")
	racexit.Exit(m.Run())
}

// setup opens a store in a fresh directory, closed at the end of the test.
func setup(t testing.TB, opts ...Option) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, dir
}

// attached is a broker on a mock clock, journaled to s and attached to it,
// closed at the end of the test (before s, which setup closes).
func attached(t testing.TB, s *Store) *sqsq.Broker {
	t.Helper()
	b := sqsq.NewBroker(sqsq.WithClock(clock.NewMock()), s.Journal())
	t.Cleanup(func() { _ = b.Close() })
	if err := s.Attach(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// newLog is a new, empty log in a fresh directory, closed at the end of
// the test (a test may close it sooner, to read it again).
func newLog(t testing.TB) *wal {
	t.Helper()
	w, _, _, _, err := openWAL(filepath.Join(t.TempDir(), walName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.close() })
	return w
}

func mustSave(t testing.TB, s *Store, w *state.World) {
	t.Helper()
	if err := s.Save(w); err != nil {
		t.Fatal(err)
	}
}

func mustLoad(t testing.TB, s *Store) *state.World {
	t.Helper()
	w, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// fataler is what checkWorld needs of a test: *testing.T and *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// checkWorld fails the test if got is not want, naming the first place
// they differ.
func checkWorld(t fataler, want, got *state.World) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("loaded World differs at %s", firstDiff(reflect.ValueOf(want), reflect.ValueOf(got), "World"))
	}
}

// firstDiff walks two values like reflect.DeepEqual and describes the
// first difference, nil against empty included.
func firstDiff(a, b reflect.Value, path string) string {
	if a.Kind() == reflect.Pointer || a.Kind() == reflect.Slice || a.Kind() == reflect.Map {
		if a.IsNil() != b.IsNil() {
			return fmt.Sprintf("%s: nil %v, got nil %v", path, a.IsNil(), b.IsNil())
		}
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			return ""
		}
		return firstDiff(a.Elem(), b.Elem(), path)
	case reflect.Struct:
		for i := range a.NumField() {
			if d := firstDiff(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: length %d, got %d", path, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if d := firstDiff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Map:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: length %d, got %d", path, a.Len(), b.Len())
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() {
				return fmt.Sprintf("%s[%v]: missing", path, k)
			}
			if d := firstDiff(a.MapIndex(k), bv, fmt.Sprintf("%s[%v]", path, k)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return fmt.Sprintf("%s: want %#v, got %#v", path, a.Interface(), b.Interface())
	}
	return ""
}

// richWorld sets every field of every type at least once, with extreme
// values, nil and empty maps and slices, and binary attributes.
// TestRichWorldSetsEveryField keeps it so when package state grows.
func richWorld() *state.World {
	attrs := map[string]state.Attribute{
		"s":     {DataType: "String", StringValue: "ünïcode \x00 and NUL"},
		"n":     {DataType: "Number.float", StringValue: "-1.5e10"},
		"b":     {DataType: "Binary", BinaryValue: []byte{0, 1, 0xfe, 0xff}},
		"empty": {DataType: "Binary.custom", BinaryValue: []byte{}},
	}
	std := state.Queue{
		ID: 7, Name: "orders",
		Attributes: map[string]string{"VisibilityTimeout": "30", "RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:000000000000:dlq","maxReceiveCount":3}`},
		Tags:       map[string]string{"team": "payments", "": "empty key"},
		Created:    1_700_000_000_000_000_000, Modified: 1_700_000_001_000_000_000, Purged: 1_700_000_002_000_000_000,
		Seq: 1 << 40, FIFOSeq: 0,
		Messages: []state.Message{
			{
				ID: "0b2a1c4e-0000-4000-8000-000000000001", Body: "hello", SentAt: 1_700_000_000_123,
				Attributes:       attrs,
				SystemAttributes: map[string]state.Attribute{"AWSTraceHeader": {DataType: "String", StringValue: "Root=1-5759e988-bd862e3fe1be46a994272793"}},
				DeadLetterSource: "arn:aws:sqs:us-east-1:000000000000:src",
				Seq:              1, Slot: math.MaxUint32, State: state.Inflight, Serial: math.MaxUint32, Gen: 3, ReceiveCount: math.MaxInt32,
				EnqueuedAt: math.MinInt64 + 1, VisibleAt: math.MaxInt64, AvailableSince: -5, FirstReceiveAt: state.NotReceived, ReceivedAt: 1,
			},
			{ID: "m2", Body: strings.Repeat("x", 70_000), Attributes: map[string]state.Attribute{}, Seq: 2, State: state.Available},
			{ID: "m3", Body: "", Seq: 1 << 40, State: state.Delayed, ReceiveCount: -1},
		},
		DeadLetterSources: []string{},
		Counters:          []state.Counter{{Name: "Negative", Value: -1}, {Name: "Received", Value: math.MaxInt64}, {Name: "Sent", Value: 3}},
	}
	fifo := state.Queue{
		ID: 8, Name: "orders.fifo", FIFO: true,
		Attributes: map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "false"},
		Tags:       map[string]string{},
		Seq:        3, FIFOSeq: math.MaxUint64, WasPurged: true,
		Messages: []state.Message{
			{ID: "f1", Body: "a", GroupID: "g1", DedupID: "d1", SequenceNumber: math.MaxUint64, Seq: 2, State: state.Available, FirstReceiveAt: 1_700_000_000_000},
			{ID: "f2", Body: "b", GroupID: "g\x00two", DedupID: "", SequenceNumber: 1, Seq: 3, State: state.Inflight},
		},
		DedupByID:   []state.Dedup{{Key: "d1", MessageID: "f1", SeqNum: math.MaxUint64, Expires: 42}},
		DedupByPair: []state.Dedup{{Key: "g1\x00d1", MessageID: "f1", SeqNum: 1, Expires: -42}, {Key: "", Expires: 0}},
		Attempts: []state.Attempt{
			{ID: "attempt-1", Expires: 99, Vis: 30e9, SysNames: []string{"All"}, AttrNames: []string{}, Msgs: []state.AttemptMsg{
				{Seq: 2, Slot: 1, Serial: 2, Gen: math.MaxUint32}, {Seq: math.MaxUint64},
			}},
			{ID: "attempt-2", Msgs: []state.AttemptMsg{}},
		},
		DeadLetterSources: []string{"arn:aws:sqs:us-east-1:000000000000:a", ""},
	}
	return &state.World{
		Now: 1_700_000_003_000_000_000, NextQueueID: 12, NextTaskSeq: math.MaxUint64,
		Scopes: []state.Scope{
			{
				Account: "000000000000", Region: "us-east-1", ReceiptKey: [2]uint64{0xdeadbeefcafebabe, math.MaxUint64},
				Queues: []state.Queue{
					std, fifo,
					{ID: 9, Name: "nil-messages"},
					{ID: 10, Name: "empty-messages", Messages: []state.Message{}, Attributes: map[string]string{}, Counters: []state.Counter{}}, // An empty window is nil: its entries are records of their own.

				},
				Deleted: []state.Expiring{{Key: "gone", Expires: 1_700_000_060_000_000_000}, {Key: "", Expires: -1}},
			},
			{Account: "111111111111", Region: "eu-west-1", Deleted: []state.Expiring{}},
			// IDs need not follow scope order.
			{Account: "222222222222", Region: "ap-south-1", Queues: []state.Queue{{ID: 2, Name: "z", Messages: []state.Message{{ID: "z1", Seq: 5}}}, {ID: 3, Name: "dlq"}}},
			{Account: "333333333333", Queues: []state.Queue{}},
		},
		Tasks: []state.Task{
			{ID: "t1", Handle: "handle-1", Seq: 1, Source: "arn:aws:sqs:us-east-1:000000000000:dlq", SourceID: 3,
				Dest: "arn:aws:sqs:us-east-1:000000000000:orders", Rate: 500, RateSet: true, Started: 1_700_000_000_000,
				Status: "RUNNING", Failure: "none", ToMove: 10, Moved: 4, Cancel: 1_700_000_001_000},
			{ID: "t2", Seq: 2, Rate: -1, ToMove: -1},
		},
	}
}

// bigWorld is one scope with a queue of n messages whose bodies have size
// bytes, shaped like what an SQS user sends: an id, a few attributes,
// sent and received.
func bigWorld(n, size int) *state.World {
	msgs := make([]state.Message, n)
	body := strings.Repeat("b", size)
	for i := range msgs {
		msgs[i] = state.Message{
			ID:     fmt.Sprintf("00000000-0000-4000-8000-%012d", i),
			Body:   body,
			SentAt: 1_700_000_000_000 + int64(i),
			Attributes: map[string]state.Attribute{
				"trace": {DataType: "String", StringValue: "abc"},
			},
			Seq: uint64(i + 1), State: state.Available,
			EnqueuedAt: 1_700_000_000_000_000_000 + int64(i)*1000, VisibleAt: 1_700_000_000_000_000_000 + int64(i)*1000,
			AvailableSince: 1_700_000_000_000_000_000 + int64(i)*1000, FirstReceiveAt: state.NotReceived,
		}
	}
	return &state.World{
		Now: 1_700_000_100_000_000_000, NextQueueID: 1,
		Scopes: []state.Scope{{Account: "000000000000", Region: "us-east-1", Queues: []state.Queue{
			{ID: 1, Name: "big", Attributes: map[string]string{"VisibilityTimeout": "30"}, Seq: uint64(n), Messages: msgs},
		}}},
	}
}
