// Package userfile is a user's test of a consumer that fails, for
// TestFailuresNameTheUsersFile in ../../check_external_test.go: every
// line of the failure must name this file, not the kit's.
package userfile

import (
	"context"
	"errors"
	"testing"

	"pgregory.net/rapid"

	"github.com/sqsq/sqsq/sqsqtest"
)

func scenario() sqsqtest.Scenario {
	return sqsqtest.Scenario{
		Messages: []string{"order-1"},
		Consumer: func(env *sqsqtest.Env) sqsqtest.Handler {
			q := env.Queue()
			return func(ctx context.Context, m sqsqtest.Msg) error { return q.Delete(ctx, m.ReceiptHandle) }
		},
		Invariants: []sqsqtest.Invariant{{Name: "always", Check: func(*sqsqtest.Result) error { return errors.New("A fails") }}},
	}
}

func TestUserPlain(t *testing.T) {
	scenario().TestPlain(t) // USER LINE
}

func TestUserRapidCheck(t *testing.T) {
	rapid.Check(t, scenario().Check) // USER LINE
}

func TestUserSeeds(t *testing.T) {
	scenario().Seeds(t, 1, 10) // USER LINE
}
