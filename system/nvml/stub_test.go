//go:build !nvml || !linux

package nvml

import (
	"errors"
	"testing"
)

// Without the nvml tag nothing is loaded, whatever the path.
func TestOpenNotBuilt(t *testing.T) {
	if _, err := Open(DefaultLibrary); !errors.Is(err, ErrNotBuilt) {
		t.Fatalf("Open = %v, want ErrNotBuilt", err)
	}
}
