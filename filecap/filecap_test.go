package filecap

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path  string
		limit int64
		ok    bool
		msg   string
	}{
		{small, 5, true, ""},
		{small, 4, false, small + ": larger than the 4-byte limit for a test file"},
		{"/dev/zero", 1 << 20, false, "/dev/zero: larger than the 1 MiB limit for a test file"},
	} {
		b, err := ReadFile(tc.path, "test file", tc.limit)
		if tc.ok {
			if err != nil || string(b) != "12345" {
				t.Errorf("ReadFile(%s, %d) = %q, %v", tc.path, tc.limit, b, err)
			}
			continue
		}
		var te *TooLargeError
		if !errors.As(err, &te) || err.Error() != tc.msg {
			t.Errorf("ReadFile(%s, %d): %v, want %q", tc.path, tc.limit, err, tc.msg)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "absent"), "test file", 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent file: %v", err)
	}
}
