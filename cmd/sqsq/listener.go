package main

import (
	"errors"
	"net"
	"sync"
	"time"
)

// limitListener accepts at most cap(slots) connections at once: each
// holds a slot until it is closed, and Accept waits for a free one, so
// further clients queue in the kernel's backlog until the server's
// timeouts close a stalled or idle connection. It bounds the file
// descriptors and the per-connection memory (goroutine, buffers, a body
// being received) that clients can make the server hold.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
	// full, if set, is called when no slot is free, and every
	// fullRetry while none is, to take one back (see fairness).
	full func() bool
}

// fullRetry is how often a blocked Accept asks full for a slot again: a
// connection ended early may take a moment to close.
const fullRetry = 250 * time.Millisecond

func newLimitListener(l net.Listener, n int) *limitListener {
	return &limitListener{Listener: l, slots: make(chan struct{}, n), closed: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	if err := l.slot(); err != nil {
		return nil, err
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
}

// slot takes a slot, waiting for one; while none is free it asks full to
// take one back.
func (l *limitListener) slot() error {
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-l.closed:
		return net.ErrClosed
	default:
	}
	var retry <-chan time.Time
	if l.full != nil {
		l.full()
		t := time.NewTicker(fullRetry)
		defer t.Stop()
		retry = t.C
	}
	for {
		select {
		case l.slots <- struct{}{}:
			return nil
		case <-l.closed:
			return net.ErrClosed
		case <-retry:
			l.full()
		}
	}
}

// Close closes the listener and ends an Accept waiting for a slot.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// limitConn gives its slot back when closed (once, however often it is
// closed).
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// CloseWrite passes the TCP half-close through: net/http half-closes a
// connection it gives up on (after a 413, say) so that the client reads
// the answer before the connection goes.
func (c *limitConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}
