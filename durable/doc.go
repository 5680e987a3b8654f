// Package durable keeps a sqsq endpoint's state in a directory, so that
// cmd/sqsq -data DIR finds its queues and messages after a restart. It
// stores a [state.World], the plain-data picture of an endpoint that
// package sqsq exports and imports, in one bbolt file (go.etcd.io/bbolt
// v1.4.3), dir/sqsq.db. Since state is an internal package, only this
// module can use durable.
//
// It writes each change as it is made. A broker made with
// [Store.Journal] tells the Store every change of its endpoint's state (a
// message sent, received, deleted; a queue created or changed; a move
// task's progress; a FIFO deduplication id remembered), before the call
// that made it returns. After [Store.Attach] a goroutine, the committer,
// appends the changes told so far to a write-ahead log, dir/sqsq.wal, as
// one frame, syncs it, then starts again with those told meanwhile:
// concurrent calls share a commit (group commit), whose cost is one write
// and one fdatasync however many calls it holds, and a commit waits for
// the callers of the last one, up to 6 ms, or until 2 ms pass with none
// coming. [Store.Sync] returns once
// every change told before it is on disk, so a call followed by Sync
// survives a crash (kill -9, power loss) an instant later; cmd/sqsq
// answers each SQS call only then (sqshttp.WithCommit). Each second, or
// every 16 MiB of log, a checkpoint writes the log's changes into sqsq.db
// in one bbolt transaction, record by record, keeping only each record's
// last change (a message sent, received and deleted between two
// checkpoints costs sqsq.db nothing), and cuts the log: the next commits
// write over its blocks, which is cheaper than growing a file, and an
// idle or closed Store gives them back. Open replays a log a crash left
// (see wal.go).
//
// # Using it
//
//	store, err := durable.Open(dir, durable.Version("sqsq v1.2.0"))
//	if err != nil {
//		return err // ErrInUse, ErrFormat, ErrDamaged: the message says what to do
//	}
//	defer store.Close() // after the broker's last call: writes what is left
//	if note := store.Recovered(); note != "" {
//		log.Print(note)
//	}
//	w, err := store.Load() // nil if nothing was saved yet
//	…
//	var b *sqsq.Broker
//	if w == nil {
//		b = sqsq.NewBroker(store.Journal())
//	} else {
//		b, err = durable.Restore(w, store.Journal())
//	}
//	err = store.Attach(b) // saves b whole if the store is new
//	h := sqshttp.NewHandler(b, sqshttp.WithCommit(store.Sync))
//
// In a Go program without HTTP, call Sync after the calls that must be
// durable. [CommitEvery] commits at most once per interval instead (fewer
// fsyncs, longer Syncs). [Store.Save] writes a whole World at once, in
// one transaction or not at all; [Store.Checkpoint] commits even with no
// change, to record a virtual clock's instant.
//
// A Store holds the directory until Close: a second Open, in this process
// or another, fails at once with [ErrInUse], naming the pid that holds it.
// The lock is a flock on dir/sqsq.db.lock, which the kernel drops when
// its process ends, even by kill -9; bbolt's own lock on sqsq.db is a
// second one.
//
// # Files
//
//	dir/sqsq.db                    the store
//	dir/sqsq.wal                   the write-ahead log: the commits since the last checkpoint
//	dir/sqsq.db.lock               the lock; it holds the pid of its owner
//	dir/sqsq.db.compact            a compaction under way (removed by Open if one was cut short)
//	dir/sqsq.db.damaged-<UTC time> a damaged store that Open with Recover moved aside (and its log, .wal)
//	dir/sqsq.wal.damaged-<UTC time> a damaged log that Open with Recover moved aside
//
// # Layout
//
// Top-level buckets, and in each the key and the record. Numbers in keys
// are big-endian, so keys sort in number order: queue IDs, Seqs and task
// indexes take 8 bytes, scope indexes 4.
//
//	meta      "format"  the format, 8 bytes big-endian: state.Version. Frozen, so that
//	                    every version of sqsq can read it before anything else.
//	          "sqsq"    the Version of the program that wrote last (a plain string)
//	          "world"   Now, NextQueueID, NextTaskSeq, the root scope's Account and
//	                    Region, how many scopes and tasks
//	scopes    account NUL region
//	                    Account, Region, ReceiptKey, Deleted, how many queues
//	queues    queue ID  its scope's Account and Region, Name, FIFO, Attributes, Tags,
//	                    Created, Modified, Purged, WasPurged, Seq, FIFOSeq, how many
//	                    messages, how many window entries, the number of the next
//	                    window entry, DeadLetterSources, Counters
//	messages  queue ID  a bucket per queue, keyed by Seq:
//	                    ID, Body, SentAt, Attributes, SystemAttributes, GroupID,
//	                    DedupID, SequenceNumber, DeadLetterSource, Slot, State,
//	                    Serial, Gen, ReceiveCount, and EnqueuedAt, VisibleAt,
//	                    AvailableSince, FirstReceiveAt, ReceivedAt (8 bytes each)
//	windows   queue ID  a bucket per FIFO queue with entries, keyed by the window
//	                    (1 DedupByID, 2 DedupByPair, 3 Attempts) and the entry's key:
//	                    its number, then the Dedup's or the Attempt's fields
//	tasks     Seq       the Task's fields, in order
//
// The root scope (World.Scopes[0], the broker's own namespace) comes
// first; the others follow in key order, a scope's queues in ID order, a
// window's entries in the order of their numbers, which is the order they
// were put in. Every change is one record: a send or a delete rewrites a
// message and its queue's record (a few hundred bytes: the windows are
// apart, so a FIFO send writes one deduplication entry, not the window).
//
// Records are written by hand, not with gob or JSON: counts and unsigned
// numbers as uvarints, signed ones as zigzag varints, strings as a length
// and the bytes, bodies as they are (no compression). A slice, map or
// []byte is preceded by its length plus one, 0 for nil, so nil and empty
// come back as they went. Map entries are in key order, so equal Worlds
// make equal records. Every record ends with a CRC-32C of its key and
// bytes: bbolt checksums its meta pages only. The counts make a lost
// record visible: a flipped element count in a page can drop the last
// record of a page without breaking the page.
//
// # When things go wrong
//
// Damage. Before bbolt maps the file, Open reads all of it, page by page,
// without trusting any of it: every page below bbolt's high water mark in
// use at most once (the store writes no freelist: bbolt's NoFreelistSync,
// since writing it at every commit cost seven times the rest of a commit
// once many pages were free; bbolt rebuilds it at Open), page types,
// element bounds, key order (what bbolt's tx.Check checks), and every
// record's checksum; then it checks
// that the records make a whole World (each count matches). A truncated
// or corrupt file fails Open with [ErrDamaged] ("dir/sqsq.db is damaged:
// page 12 says it is page 40; start with -data-recover …"), never with a
// crash or a hang: bbolt trusts its file, and can fault, panic or loop on
// such files. After
// Open succeeds, Load fails only if this package has a bug; bbolt runs
// under recover and [runtime/debug.SetPanicOnFault] all the same. With [Recover],
// Open moves a damaged file aside and starts empty; [Store.Recovered]
// says so.
//
// Crash during a commit. Commits append to the log one after the other,
// each synced before the next begins, so a crash leaves at most the last
// frame cut short or with a bad checksum: a commit no Sync returned for.
// Open drops it and says so through [Store.Recovered]. A whole frame with
// a good checksum that does not decode is damage, refused like a damaged
// file ([Recover] moves the log aside, losing its changes).
//
// Crash during a checkpoint or a Save. bbolt writes the new pages
// elsewhere in the file, syncs them, then writes one of its two meta pages
// (alternately) and syncs again. A crash before that write leaves the
// previous transaction; a crash during it leaves that meta page torn, and
// bbolt, and Open, use the other one: the previous transaction again.
// Open then says, through [Store.Recovered], that one meta page was
// invalid. The log is cut only after the checkpoint's transaction, so its
// changes are replayed, and replaying a change twice is harmless: each
// sets a record to what it became. (A flipped bit in the newest meta page
// looks the same, and loses what the log no longer holds.)
// internal/crash kills cmd/sqsq at random moments and checks every
// acknowledged call after the restart; TestLogReplay copies the files at
// random instants as a crash would leave them.
//
// Disk full. A commit that cannot write marks the log's end where it
// was and returns the error ("durable: writing to dir/sqsq.db: …: no
// space left on device"); the Store goes on working. Sync fails for the
// calls whose changes were in the failed commit (cmd/sqsq answers them
// 500 InternalFailure); the changes stay queued, and a later commit,
// retried with a growing pause up to a second, writes them once there is
// room. A checkpoint or a Save that cannot write is rolled back by bbolt,
// the previous state stays in the file, and a checkpoint's changes stay in
// the log until the next one succeeds. TestDiskFull and
// TestDiskFullCommit show it with a file size limit. If the final sync of
// a commit fails, bbolt returns the error but the new state may be on
// disk.
//
// Another format. A file of another format fails Open with [ErrFormat]
// ("dir/sqsq.db is format 2; this sqsq reads format 1: use sqsq v2.0.0,
// which wrote it, or another -data directory") and is left untouched,
// even with Recover.
//
// # Disk space
//
// bbolt never shrinks its file, and a Save writes the new state beside
// the old, which is free only once the new one is committed: a store
// saved again and again takes twice the size of its state, plus up to
// 16 MiB that bbolt allocates ahead. Commits free and reuse pages as they
// go; messages deleted leave their pages free. [Store.Compact] copies the live
// records to a new file and renames it over the old one, under the lock;
// Open does the same when more than two thirds of the file are free.
//
// # Size and speed
//
// A commit costs one write and one fdatasync of the log, about 0.1 ms of
// CPU on the project's 2-vCPU machine, where a bbolt transaction costs
// about 0.3 ms (and 2.2 ms when bbolt also wrote its freelist, which the
// store now leaves to bbolt to rebuild at Open). BenchmarkCommit sends 1
// KiB messages on 16 goroutines, each send followed by Sync: 16 sends
// share a commit, at 24 µs of CPU a send (36 and 58 µs at a FIFO
// deduplication window of 1,000 and 10,000 ids, each id a record of its
// own). Its cycle case is the HTTP load test's loop without HTTP (batches
// of ten sent, received and deleted, each call followed by Sync): 7.6 to
// 8.2 µs of CPU and 8 allocations a message, 1.5 to 2.2 µs and 4 in
// memory (cycle-memory); measured in December 2026 on a machine faster
// than the one of the Save and Load figures below:
//
//	go test -run '^$' -bench Commit -benchtime 20000x ./durable
//
// Save and Load, measured on the same machine shared with other work (Go
// 1.26, linux/amd64; runs vary by up to half), with a queue of messages of
// a 1 KiB body, a 36-byte id and one attribute:
//
//	go test -run '^$' -bench . -benchtime 10x ./durable                                  # 100,000 messages
//	go test -run '^$' -bench . -benchtime 3x ./durable -args -durable.messages=1000000   # 1,000,000
//
//	                                        100,000 messages       1,000,000 messages
//	Save                                    9.3 µs/msg (0.93 s)    14-16 µs/msg (14-16 s)
//	Open (reads and checks every record)    0.9 µs/msg (0.09 s)    0.5 µs/msg (0.5 s)
//	Load after Close and Open               1.7 µs/msg (0.17 s)    2.3-2.9 µs/msg (2.3-2.9 s)
//	Load again (BenchmarkLoad)              0.9-1.2 µs/msg         1.0-1.5 µs/msg (1.0-1.5 s)
//	file after one Save                     1,542 B/msg            1,390 B/msg
//	file after repeated Saves               2,918 B/msg            2,766 B/msg
//	compacted                               1,374 B/msg            1,373 B/msg
//	Compact                                 7.0 µs/msg             7.8 µs/msg
//	saved again without the messages        154 MB                 1.39 GB
//	… and compacted                         28 KiB                 28 KiB
//
// A message takes 1,373 bytes on disk for 1,024 of body: its record is
// about 1,140 bytes, and three fit in a 4 KiB page. Decoding 1,000,000
// messages takes 1.0 to 1.5 s; the first Load in a process takes longer
// on this machine (4.8 s in a one-round run), as does Save, because its
// memory is slow the first time it is touched: a program that only
// allocates and writes 1.15 GB in 1 KiB pieces takes 3.6 to 5.3 s here,
// 0.3 s when the memory was used before. Load allocates about 2 GB for
// 1,000,000 such messages: the bodies (1.15 GB), and each message's
// attribute map, about 600 bytes even for one attribute. Save holds the
// encoded records and bbolt's new pages in memory until the commit, about
// 2.5 times the bodies, on top of the World.
package durable
