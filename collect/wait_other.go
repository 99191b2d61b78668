//go:build !linux

package collect

import "errors"

// waitExit cannot wait for an exit without reaping the process here; the
// caller then reaps it with exec.Cmd.Wait and leaves its group alone.
func waitExit(int) error { return errors.ErrUnsupported }
