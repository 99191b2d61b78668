package logview_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/perfcounters/perfcounters/internal/asuser"
	"github.com/perfcounters/perfcounters/internal/logview"
)

// TestUploadPrivate: an uploaded log is written where no other user can
// read it, even in a temporary directory every user shares (/tmp): Bob,
// while the upload of the server's user is on disk, can neither list its
// directory nor read its file. Its modes are 0700 and 0600.
func TestUploadPrivate(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		if step != "read" {
			t.Fatalf("unknown step %q", step)
		}
		file := os.Getenv("FILE")
		if _, err := os.ReadFile(file); err == nil {
			t.Fatalf("read %s as another user", file)
		}
		if _, err := os.ReadDir(filepath.Dir(file)); err == nil {
			t.Fatalf("listed %s as another user", filepath.Dir(file))
		}
		return
	}
	r := asuser.New(t)
	b, err := os.ReadFile(sampleLog)
	if err != nil {
		t.Fatal(err)
	}
	h := logview.New(logview.Options{TempDir: r.SharedDir()})
	seen := false
	logview.SetUploaded(h, func(file string) {
		seen = true
		fi, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		di, err := os.Stat(filepath.Dir(file))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
			t.Errorf("upload file mode %v in a directory of mode %v, want 0600 in 0700", fi.Mode().Perm(), di.Mode().Perm())
		}
		if out, err := r.Run(asuser.Bob, "TestUploadPrivate", "read", "FILE="+file); err != nil {
			t.Errorf("as Bob: %v\n%s", err, out)
		}
	})
	srv := serve(t, h)
	upload(t, srv, "SampleLog.blg", b)
	if !seen {
		t.Fatal("the upload was not written where the test could see it")
	}
}
