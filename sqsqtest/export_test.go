package sqsqtest

// PlayedBothWays plays the schedule of seed silently and told (see
// run.silent), each from a recorder, for TestSilentRunsTellTheSameRun; the
// told run settles as runs did before silent ones (stuckByText).
func PlayedBothWays(s Scenario, seed uint64) (silent, told *Outcome, silentDraws, toldDraws []int) {
	s = s.reuse()
	defer s.spare.stop()
	a := &recorder{src: Seed(seed)}
	silent = s.play(a, true)
	b := &recorder{src: Seed(seed)}
	s.spare.stuckByText = true
	told = s.play(b, false)
	return silent, told, a.seq, b.seq
}

// Lines is how many lines o's run logged, written or not.
func Lines(o *Outcome) int { return o.lines }
