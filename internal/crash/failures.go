package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/aws/smithy-go"
)

// failures counts the calls that failed, by operation and error code
// ("transport" for no answer). Most are the kill's: calls cut off or
// refused while the server was down. Any other kind in numbers (a queue
// not found, say) would point at the workload, so -v shows them.
type failures struct {
	mu sync.Mutex
	n  map[string]int
}

func (f *failures) add(err error) {
	op, code := "?", "transport"
	var oe *smithy.OperationError
	if errors.As(err, &oe) {
		op = oe.OperationName
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == nil {
		f.n = map[string]int{}
	}
	f.n[op+" "+code]++
}

func (f *failures) total() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var t int64
	for _, n := range f.n {
		t += int64(n)
	}
	return t
}

// String lists the counts, most first.
func (f *failures) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	keys := make([]string, 0, len(f.n))
	for k := range f.n {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return f.n[keys[i]] > f.n[keys[j]] || f.n[keys[i]] == f.n[keys[j]] && keys[i] < keys[j]
	})
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, f.n[k])
	}
	return b.String()
}
