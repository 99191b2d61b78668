//go:build !unix

package collect

import "os/exec"

// newGroup does nothing where there are no process groups.
func newGroup(*exec.Cmd) {}

// killGroup does nothing where there are no process groups: the provider
// itself is killed by its os.Process.
func killGroup(int) {}
