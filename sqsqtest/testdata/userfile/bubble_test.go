//go:build go1.25

package userfile

import "testing"

func TestUserBubble(t *testing.T) {
	scenario().Test(t) // USER LINE
}
