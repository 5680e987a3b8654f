package durable

import (
	"flag"
	"path/filepath"
	"testing"
	"time"
)

var benchMessages = flag.Int("durable.messages", 100_000, "messages of 1 KiB in BenchmarkSaveLoad and BenchmarkCompact")

// BenchmarkSaveLoad saves a queue of -durable.messages messages of 1 KiB,
// then does what a restart does: Close, Open (which checks every page and
// record) and Load. It reports each step per message, and the file's
// bytes per message.
func BenchmarkSaveLoad(b *testing.B) {
	n := *benchMessages
	w := bigWorld(n, 1024)
	dir := b.TempDir()
	s, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { s.Close() }()
	var save, open, load time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if err := s.Save(w); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		if s, err = Open(dir); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		got, err := s.Load()
		if err != nil || len(got.Scopes[0].Queues[0].Messages) != n {
			b.Fatal(err)
		}
		save, open, load = save+t1.Sub(t0), open+t2.Sub(t1), load+time.Since(t2)
	}
	per := float64(b.N) * float64(n)
	b.ReportMetric(float64(save.Nanoseconds())/per, "save-ns/msg")
	b.ReportMetric(float64(open.Nanoseconds())/per, "open-ns/msg")
	b.ReportMetric(float64(load.Nanoseconds())/per, "load-ns/msg")
	b.ReportMetric(float64(fileSize(b, filepath.Join(dir, FileName)))/float64(n), "disk-B/msg")
}

// BenchmarkLoad is Load alone, after a first, untimed Load: what decoding
// costs when the process already has the memory. (A process's first Load
// of a large store also pays for fresh memory, which some machines make
// slow: see the package doc.)
func BenchmarkLoad(b *testing.B) {
	n := *benchMessages
	s, _ := setup(b)
	if err := s.Save(bigWorld(n, 1024)); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Load(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Load(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "load-ns/msg")
}

// BenchmarkCompact saves -durable.messages messages of 1 KiB, then the
// same queues without messages, then compacts: it reports the file's
// size after each step and the compaction's time per message it had.
func BenchmarkCompact(b *testing.B) {
	n := *benchMessages
	full, empty := bigWorld(n, 1024), emptied(bigWorld(n, 1024))
	var fullSize, emptiedSize, compacted, compactFull int64
	var compactFullTime time.Duration
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		path := filepath.Join(dir, FileName)
		s, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Save(full); err != nil {
			b.Fatal(err)
		}
		fullSize = fileSize(b, path)
		t0 := time.Now()
		if err := s.Compact(); err != nil { // all live: the worst case
			b.Fatal(err)
		}
		compactFullTime += time.Since(t0)
		compactFull = fileSize(b, path)
		if err := s.Save(empty); err != nil {
			b.Fatal(err)
		}
		emptiedSize = fileSize(b, path)
		b.StartTimer()
		if err := s.Compact(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		compacted = fileSize(b, path)
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(fullSize)/float64(n), "disk-B/msg")
	b.ReportMetric(float64(compactFull)/float64(n), "compacted-B/msg")
	b.ReportMetric(float64(compactFullTime.Nanoseconds())/float64(b.N)/float64(n), "compact-ns/msg")
	b.ReportMetric(float64(emptiedSize), "emptied-B")
	b.ReportMetric(float64(compacted), "emptied-compacted-B")
}
