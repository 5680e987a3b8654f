package durable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// checkFile reads a store file as bbolt would and checks all of it before
// bbolt maps it: bbolt trusts its file, and a damaged one can make it
// fault, panic, or loop (a page that points back at its parent). The
// check reads the file with ReadAt, visits each page at most once, and
// bounds every offset by the page it is in, so it neither crashes nor
// hangs. It checks what bbolt's tx.Check does (every page below the high
// water mark is in use exactly once, or free if the file has a freelist,
// keys in order, pages of a known type) and the checksum of every record, and finds the format
// record (reported in fileReport.badRecord). The page layout is bbolt's file format 2, which v1.4.3 writes.
//
// A damaged file yields a damage error; an I/O error is returned as it
// is. A missing or empty file is an empty store.
func checkFile(path string) (fileReport, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return fileReport{empty: true}, nil
	}
	if err != nil {
		return fileReport{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fileReport{}, err
	}
	if info.Size() == 0 {
		return fileReport{empty: true}, nil
	}
	c := &checker{f: f, rep: fileReport{size: info.Size(), messages: map[string]int{}}}
	if err := c.run(); err != nil {
		return c.rep, err
	}
	return c.rep, nil
}

// fileReport is what checkFile learnt about a store file.
type fileReport struct {
	empty    bool   // no file, an empty file, or a bbolt file without buckets
	format   uint64 // meta/format; 0 if absent
	writer   string // meta/sqsq
	size     int64  // bytes
	pageSize int
	pages    uint64 // the high water mark: pages in use or free
	free     uint64 // pages on the freelist
	// badRecord is the first record whose checksum failed. It is not
	// returned as an error because a file of another format may encode
	// its records otherwise: the format is judged first.
	badRecord error
	// badMeta: one of the two meta pages is invalid. bbolt uses the
	// other, which is the previous commit if the bad one was the newest.
	badMeta bool
	// messages counts the records of each bucket messages/<id>, by id,
	// so that Open need not read them again through bbolt.
	messages map[string]int
}

// damage is why a file is damaged.
type damage string

func (d damage) Error() string { return string(d) }

func damagef(format string, args ...any) error { return damage(fmt.Sprintf(format, args...)) }

// bbolt's file format 2 (go.etcd.io/bbolt/internal/common), in the
// machine's byte order.
const (
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	pageHeaderSize = 16 // id u64, flags u16, count u16, overflow u32
	elementSize    = 16 // branch: pos u32, ksize u32, pgid u64; leaf: flags, pos, ksize, vsize u32
	bucketHeader   = 16 // root pgid u64, sequence u64
	flagBranch     = 0x01
	flagLeaf       = 0x02
	flagFreelist   = 0x10
	leafIsBucket   = 0x01
	noFreelist     = ^uint64(0)
	maxDepth       = 64 // B+tree height plus bucket nesting; real files need < 10
)

var ne = binary.NativeEndian

// boltMeta is a meta page (pages 0 and 1).
type boltMeta struct {
	magic, version, pageSize uint32
	root, freelist, pgid     uint64
	txid                     uint64
	ok                       bool // magic, version and checksum are right
}

// parseMeta reads the meta in page p (at least 80 bytes).
func parseMeta(p []byte) boltMeta {
	m := p[pageHeaderSize:]
	bm := boltMeta{
		magic:    ne.Uint32(m[0:]),
		version:  ne.Uint32(m[4:]),
		pageSize: ne.Uint32(m[8:]),
		root:     ne.Uint64(m[16:]), // m[24:32] is the root bucket's sequence
		freelist: ne.Uint64(m[32:]),
		pgid:     ne.Uint64(m[40:]),
		txid:     ne.Uint64(m[48:]),
	}
	h := fnv.New64a()
	h.Write(m[:56])
	bm.ok = bm.magic == boltMagic && bm.version == boltVersion && h.Sum64() == ne.Uint64(m[56:])
	return bm
}

type checker struct {
	f           *os.File
	rep         fileReport
	ps          int
	hwm         uint64
	seen, freed bitset
	bufs        [][]byte // one page buffer per depth
	blockBuf    []byte   // readAt's read-ahead
	block       []byte
	blockOff    int64
	path        []string // bucket names down to the current one
}

func (c *checker) run() error {
	m, err := c.meta()
	if err != nil {
		return err
	}
	c.hwm = m.pgid
	c.rep.pageSize, c.rep.pages = c.ps, c.hwm
	if c.hwm < 2 || c.hwm > uint64(c.rep.size)/uint64(c.ps) {
		return damagef("truncated: its pages need %d bytes and it has %d", c.hwm*uint64(c.ps), c.rep.size)
	}
	c.seen, c.freed = newBitset(c.hwm), newBitset(c.hwm)
	c.seen.set(0)
	c.seen.set(1)
	if m.freelist != noFreelist {
		if err := c.freelist(m.freelist); err != nil {
			return err
		}
	}
	if m.root == 0 {
		return damagef("the root bucket has no page")
	}
	buckets, err := c.bucketPage(m.root, 0)
	if err != nil {
		return err
	}
	if m.freelist != noFreelist {
		for id := uint64(2); id < c.hwm; id++ {
			if !c.seen.has(id) && !c.freed.has(id) {
				return damagef("page %d is neither in use nor free", id)
			}
		}
	} else { // no freelist on disk (bbolt's NoFreelistSync): free is what no tree holds
		for id := uint64(2); id < c.hwm; id++ {
			if !c.seen.has(id) {
				c.rep.free++
			}
		}
	}
	c.rep.empty = buckets == 0
	return nil
}

// meta finds the page size and returns the meta bbolt would use: the one
// with the higher transaction id if it is valid, else the other. One bad
// meta page is what a crash during a commit leaves, and bbolt then opens
// the previous transaction: so does the check.
func (c *checker) meta() (boltMeta, error) {
	var buf [0x1000]byte
	n, _ := c.f.ReadAt(buf[:], 0)
	if n < pageHeaderSize+64 {
		return boltMeta{}, damagef("truncated to %d bytes", c.rep.size)
	}
	if m := parseMeta(buf[:n]); m.ok {
		c.ps = int(m.pageSize)
	} else {
		// The first meta is bad: look for the second at each page size
		// bbolt could have used, as bbolt does.
		for i := 0; i <= 14 && c.ps == 0; i++ {
			pos := int64(1024) << i
			if pos >= c.rep.size-1024 {
				break
			}
			n, _ := c.f.ReadAt(buf[:], pos)
			if n >= pageHeaderSize+64 {
				if m := parseMeta(buf[:n]); m.ok {
					c.ps = int(m.pageSize)
				}
			}
		}
	}
	if c.ps == 0 {
		return boltMeta{}, damagef("both bbolt meta pages are invalid (not a bbolt file?)")
	}
	if c.ps < 1024 || c.ps > 1<<24 || c.ps&(c.ps-1) != 0 {
		return boltMeta{}, damagef("page size %d", c.ps)
	}
	if c.rep.size < 2*int64(c.ps) {
		return boltMeta{}, damagef("truncated to %d bytes", c.rep.size)
	}
	var metas [2]boltMeta
	for i := range metas {
		p := make([]byte, pageHeaderSize+64)
		if _, err := c.f.ReadAt(p, int64(i*c.ps)); err != nil {
			return boltMeta{}, err
		}
		metas[i] = parseMeta(p)
	}
	a, b := metas[0], metas[1]
	if b.txid > a.txid {
		a, b = b, a
	}
	for _, m := range []boltMeta{a, b} {
		if m.ok {
			if int(m.pageSize) != c.ps {
				return boltMeta{}, damagef("meta pages disagree on the page size")
			}
			if !metas[0].ok || !metas[1].ok {
				c.rep.badMeta = true
			}
			return m, nil
		}
	}
	return boltMeta{}, damagef("both bbolt meta pages are invalid")
}

// freelist reads the freelist page and marks the free pages.
func (c *checker) freelist(id uint64) error {
	p, err := c.page(id, 0)
	if err != nil {
		return fmt.Errorf("freelist: %w", err)
	}
	if flags := ne.Uint16(p[8:]); flags != flagFreelist {
		return damagef("freelist: page %d has flags %#x", id, flags)
	}
	first, count := 0, uint64(ne.Uint16(p[10:]))
	if count == 0xFFFF { // the count is the first element
		if len(p) < pageHeaderSize+8 {
			return damagef("freelist: page %d is too short", id)
		}
		first, count = 1, ne.Uint64(p[pageHeaderSize:])
	}
	room := uint64(len(p)-pageHeaderSize)/8 - uint64(first)
	if count > room {
		return damagef("freelist: %d ids do not fit in page %d", count, id)
	}
	for i := range count {
		free := ne.Uint64(p[pageHeaderSize+8*(first+int(i)):])
		switch {
		case free < 2 || free >= c.hwm:
			return damagef("freelist: page %d is out of range", free)
		case c.freed.has(free):
			return damagef("freelist: page %d is free twice", free)
		case c.seen.has(free):
			return damagef("freelist: page %d is the freelist itself", free)
		}
		c.freed.set(free)
	}
	c.rep.free = count
	return nil
}

// page reads page id and its overflow pages into the buffer of depth,
// and marks them in use.
func (c *checker) page(id uint64, depth int) ([]byte, error) {
	if depth >= maxDepth {
		return nil, damagef("page %d: the tree is more than %d levels deep", id, maxDepth)
	}
	if id < 2 || id >= c.hwm {
		return nil, damagef("page %d is out of range (%d pages)", id, c.hwm)
	}
	for len(c.bufs) <= depth {
		c.bufs = append(c.bufs, make([]byte, c.ps))
	}
	p := c.bufs[depth][:c.ps]
	if err := c.readAt(p, int64(id)*int64(c.ps)); err != nil {
		return nil, err
	}
	if got := ne.Uint64(p); got != id {
		return nil, damagef("page %d says it is page %d", id, got)
	}
	overflow := uint64(ne.Uint32(p[12:]))
	if overflow >= c.hwm-id {
		return nil, damagef("page %d: %d overflow pages run past the end", id, overflow)
	}
	for i := id; i <= id+overflow; i++ {
		switch {
		case c.seen.has(i):
			return nil, damagef("page %d is used twice", i)
		case c.freed.has(i):
			return nil, damagef("page %d is used and free", i)
		}
		c.seen.set(i)
	}
	if overflow > 0 {
		size := int(overflow+1) * c.ps
		if cap(c.bufs[depth]) < size {
			grown := make([]byte, size)
			copy(grown, p)
			c.bufs[depth] = grown
		}
		p = c.bufs[depth][:size]
		if err := c.readAt(p[c.ps:], int64(id)*int64(c.ps)+int64(c.ps)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// readBlock is how much readAt reads at once. bbolt writes a bucket's
// pages mostly in key order, so the walk reads the file mostly forwards:
// one read per 256 pages rather than one per page.
const readBlock = 1 << 20

// readAt fills p from offset off, through a block of the file read ahead.
// The caller has checked that p lies within the file's pages.
func (c *checker) readAt(p []byte, off int64) error {
	if len(p) > readBlock/2 {
		_, err := c.f.ReadAt(p, off)
		return err
	}
	if off < c.blockOff || off+int64(len(p)) > c.blockOff+int64(len(c.block)) {
		if c.blockBuf == nil {
			c.blockBuf = make([]byte, readBlock)
		}
		n, err := c.f.ReadAt(c.blockBuf, off)
		if n < len(p) {
			if err == nil || errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		c.block, c.blockOff = c.blockBuf[:n], off
	}
	copy(p, c.block[off-c.blockOff:])
	return nil
}

// bucketPage checks the tree of a bucket rooted at page id and returns how
// many keys its root page holds (for the root bucket: the buckets).
func (c *checker) bucketPage(id uint64, depth int) (int, error) {
	p, err := c.page(id, depth)
	if err != nil {
		return 0, err
	}
	return c.node(p, id, depth, nil, nil)
}

// node checks a branch or leaf page p (page id, or 0 inline) whose keys
// must lie in [lo, hi) (nil: unbounded), and the subtrees below it. It
// returns its number of elements.
func (c *checker) node(p []byte, id uint64, depth int, lo, hi []byte) (int, error) {
	if len(p) < pageHeaderSize {
		return 0, damagef("page %d is too short", id)
	}
	flags, count := ne.Uint16(p[8:]), int(ne.Uint16(p[10:]))
	if pageHeaderSize+count*elementSize > len(p) {
		return 0, damagef("page %d: %d elements do not fit", id, count)
	}
	var prev []byte
	for i := range count {
		e := pageHeaderSize + i*elementSize
		pos, ksize := uint64(ne.Uint32(p[e+4:])), uint64(ne.Uint32(p[e+8:]))
		if flags == flagBranch {
			pos, ksize = uint64(ne.Uint32(p[e:])), uint64(ne.Uint32(p[e+4:]))
		}
		var vsize uint64
		if flags == flagLeaf {
			vsize = uint64(ne.Uint32(p[e+12:]))
		}
		if uint64(e)+pos+ksize+vsize > uint64(len(p)) {
			return 0, damagef("page %d: element %d runs past the page", id, i)
		}
		key := p[uint64(e)+pos : uint64(e)+pos+ksize]
		if (prev != nil && bytes.Compare(prev, key) >= 0) || (i == 0 && lo != nil && bytes.Compare(key, lo) < 0) ||
			(hi != nil && bytes.Compare(key, hi) >= 0) {
			return 0, damagef("page %d: key %d is out of order", id, i)
		}
		prev = key
		switch flags {
		case flagBranch:
			next := hi
			if i+1 < count {
				nx := uint64(pageHeaderSize + (i+1)*elementSize)
				npos, nksize := uint64(ne.Uint32(p[nx:])), uint64(ne.Uint32(p[nx+4:]))
				if nx+npos+nksize > uint64(len(p)) {
					return 0, damagef("page %d: element %d runs past the page", id, i+1)
				}
				next = p[nx+npos : nx+npos+nksize]
			}
			child := ne.Uint64(p[e+8:])
			cp, err := c.page(child, depth+1)
			if err != nil {
				return 0, err
			}
			if _, err := c.node(cp, child, depth+1, key, next); err != nil {
				return 0, err
			}
		case flagLeaf:
			v := p[uint64(e)+pos+ksize : uint64(e)+pos+ksize+vsize]
			if err := c.leaf(ne.Uint32(p[e:]), key, v, id, depth); err != nil {
				return 0, err
			}
		default:
			return 0, damagef("page %d has flags %#x, not a branch or leaf page", id, flags)
		}
	}
	if count == 0 && flags != flagLeaf && flags != flagBranch {
		return 0, damagef("page %d has flags %#x, not a branch or leaf page", id, flags)
	}
	return count, nil
}

// leaf checks one key and value of a leaf page: a nested bucket, or a
// record and its checksum.
// inMessages says whether the bucket being entered is messages/<id>.
func (c *checker) inMessages() bool { return len(c.path) == 2 && c.path[0] == bucketMessages }

func (c *checker) leaf(flags uint32, key, v []byte, id uint64, depth int) error {
	if flags&leafIsBucket != 0 {
		if len(c.path) >= 2 && c.path[0] == bucketMessages {
			return damagef("page %d: bucket %s in a queue's messages", id, recordName(c.path, key))
		}
		if len(v) < bucketHeader {
			return damagef("page %d: bucket %q has a short header", id, key)
		}
		c.path = append(c.path, string(key))
		defer func() { c.path = c.path[:len(c.path)-1] }()
		if c.inMessages() {
			c.rep.messages[string(key)] += 0
		}
		if root := ne.Uint64(v); root != 0 {
			_, err := c.bucketPage(root, depth+1)
			return err
		}
		// An inline bucket: its page is in the value, after the header.
		_, err := c.node(v[bucketHeader:], id, depth, nil, nil)
		return err
	}
	if len(c.path) == 0 {
		return damagef("page %d: a value in the root bucket", id)
	}
	if len(c.path) == 2 && c.path[0] == bucketMessages {
		if len(key) != 8 {
			return damagef("record %s: not a message", recordName(c.path, key))
		}
		c.rep.messages[c.path[1]]++
	}
	inMeta := len(c.path) == 1 && c.path[0] == bucketMeta
	if inMeta && string(key) == keyFormat {
		// The format record is the same in every format.
		f, err := parseFormat(v)
		if err != nil {
			return damagef("record meta/format: %v", err)
		}
		c.rep.format = f
		return nil
	}
	if _, err := openRecord(key, v); err != nil {
		if c.rep.badRecord == nil {
			c.rep.badRecord = damagef("record %s: %v", recordName(c.path, key), err)
		}
		return nil
	}
	if inMeta && string(key) == keyWriter {
		c.rep.writer = string(v[:len(v)-crcSize])
	}
	return nil
}

type bitset []uint64

func newBitset(n uint64) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) has(i uint64) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) set(i uint64)      { b[i/64] |= 1 << (i % 64) }
