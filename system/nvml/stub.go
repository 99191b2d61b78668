//go:build !nvml || !linux

package nvml

// Library is an opened NVML; in this build there is none.
type Library struct{}

// Open reports ErrNotBuilt: this build has no NVML loader.
func Open(path string) (*Library, error) { return nil, ErrNotBuilt }

// Devices is never reached in this build.
func (l *Library) Devices() ([]Device, error) { return nil, ErrNotBuilt }

// Close does nothing in this build.
func (l *Library) Close() error { return nil }
