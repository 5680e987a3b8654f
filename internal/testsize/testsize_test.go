package testsize

import (
	"flag"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v       string
		want    bool
		wantErr bool
		reason  string
	}{
		{"", false, false, "unset or empty: the README's quick command"},
		{"0", false, false, "an explicit no"},
		{"1", true, false, "what .ci/run sets"},
		{"true", true, false, "strconv.ParseBool's spellings work too"},
		{"yes", false, true, "a typo must not run the quick suite unnoticed"},
	}
	for _, tt := range tests {
		got, err := parse(tt.v)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("parse(%q) = %v, %v; want %v, error %v (%s)", tt.v, got, err, tt.want, tt.wantErr, tt.reason)
		}
	}
}

func TestScale(t *testing.T) {
	t.Parallel()
	want := 2
	if Long() {
		want = 10
	}
	if got := Scale(2, 10); got != want {
		t.Errorf("Scale(2, 10) = %d with Long() = %v, want %d", got, Long(), want)
	}
}

// probe is a flag of this test binary, for TestQuickFlag.
var probe = flag.String("testsize.probe", "long", "a flag TestQuickFlag sets")

func TestQuickFlag(t *testing.T) {
	t.Parallel()
	QuickFlag("testsize.probe", "quick", "TESTSIZE_PROBE_NEVER_SET")
	want := "quick"
	if Long() {
		want = "long"
	}
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "testsize.probe" && f.Value.String() != "quick" {
			want = f.Value.String() // set on the command line: that wins
		}
	})
	if *probe != want {
		t.Errorf("-testsize.probe=%s with Long() = %v, want %s", *probe, Long(), want)
	}
}
