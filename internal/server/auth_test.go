package server

import (
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// TestBasicUnknownUserSamePath: a password check costs the same
// whether the user exists or not and whether the password is right or
// wrong: one bcrypt comparison, against a hash of the configured cost.
// (Counted, not timed.)
func TestBasicUnknownUserSamePath(t *testing.T) {
	s, err := New(Options{Addr: "127.0.0.1:0", API: stubAPI(), ConfigFile: writeConfig(t, t.TempDir(), authYAML(t))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var costs []int
	s.auth.compare = func(h, p []byte) error {
		c, err := bcrypt.Cost(h)
		if err != nil {
			c = -1
		}
		costs = append(costs, c)
		return bcrypt.CompareHashAndPassword(h, p)
	}
	for _, c := range []struct {
		user, pass string
		ok         bool
	}{
		{"alice", "wrong", false},
		{"nobody", "wrong", false},
		{"nobody", alicePass, false},
		{"alice", alicePass, true},
		{"Alice", alicePass, false},
	} {
		costs = nil
		res := s.auth.basic(c.user, c.pass)
		if (res.status == 0) != c.ok {
			t.Errorf("%s/%s: status %d, want accepted %v", c.user, c.pass, res.status, c.ok)
		}
		if len(costs) != 1 || costs[0] != bcrypt.MinCost {
			t.Errorf("%s/%s: bcrypt comparisons at costs %v, want one at cost %d, as for every user", c.user, c.pass, costs, bcrypt.MinCost)
		}
	}
}
