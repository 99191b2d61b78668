package state

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/internal/asuser"
)

func collSet(name string, counters ...string) *collectorset.Set {
	s := collectorset.New(name, "/var/log/perfc/"+name)
	s.Collector.Counters = counters
	return s
}

func setNames(cs *CollectorSets) []string {
	var out []string
	for _, s := range cs.Sets {
		out = append(out, s.Name)
	}
	return out
}

func TestCollectorSetDefinitions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	// A state directory that does not exist holds no sets.
	if cs, err := ReadCollectorSets(dir); err != nil || len(cs.Sets)+len(cs.Problems) != 0 {
		t.Fatalf("empty state: %+v, %v", cs, err)
	}
	if _, err := ReadCollectorSet(dir, "x"); !errors.Is(err, ErrCollectorSetNotFound) {
		t.Fatalf("read of a missing set: %v", err)
	}
	a := collSet("Perf_Log", `\Processor(_Total)\% Processor Time`)
	a.Status = collectorset.Running // never stored
	if err := CreateCollectorSet(dir, a, false); err != nil {
		t.Fatal(err)
	}
	if err := CreateCollectorSet(dir, collSet("b set"), false); err != nil {
		t.Fatal(err)
	}
	// Names are compared without regard to case.
	if err := CreateCollectorSet(dir, collSet("perf_log"), false); !errors.Is(err, ErrCollectorSetExists) {
		t.Errorf("second create of perf_log: %v; want exists", err)
	}
	got, err := ReadCollectorSet(dir, "PERF_LOG")
	if err != nil {
		t.Fatal(err)
	}
	want := a.Clone()
	want.Status = collectorset.Stopped
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
	// The file is the set's XML, mode 0644, and no temporary file is left.
	b, err := os.ReadFile(filepath.Join(dir, setsDir, "Perf_Log.xml"))
	if err != nil || !strings.Contains(string(b), "<Status>0</Status>") || !strings.Contains(string(b), `<Counter>\Processor(_Total)\% Processor Time</Counter>`) {
		t.Errorf("definition file: %v\n%s", err, b)
	}
	if fi, err := os.Stat(filepath.Join(dir, setsDir, "Perf_Log.xml")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("definition file mode: %v, %v", fi, err)
	}
	// Update keeps the file; create with replace (-ow) replaces it.
	u := got.Clone()
	u.Collector.SampleInterval = 5
	u.Name = "perf_LOG"
	if err := UpdateCollectorSet(dir, u); err != nil {
		t.Fatal(err)
	}
	if got, _ := ReadCollectorSet(dir, "perf_log"); got == nil || got.Collector.SampleInterval != 5 || got.Name != "Perf_Log" {
		t.Errorf("after update: %+v", got)
	}
	if err := UpdateCollectorSet(dir, collSet("nosuch")); !errors.Is(err, ErrCollectorSetNotFound) {
		t.Errorf("update of a missing set: %v", err)
	}
	if err := CreateCollectorSet(dir, collSet("PERF_log"), true); err != nil {
		t.Fatal(err)
	}
	cs, err := ReadCollectorSets(dir)
	if err != nil || len(cs.Problems) != 0 || !reflect.DeepEqual(setNames(cs), []string{"PERF_log", "b set"}) {
		t.Errorf("sets %v, problems %v, %v", setNames(cs), cs.Problems, err)
	}
	// Bad definitions are not written.
	bad := collSet("bad")
	bad.Collector.SampleInterval = 0
	if err := CreateCollectorSet(dir, bad, false); err == nil {
		t.Error("a set with interval 0 was stored")
	}
	// Delete.
	if f, err := DeleteCollectorSet(dir, "B SET"); err != nil || filepath.Base(f) != "b set.xml" {
		t.Errorf("delete: %q, %v", f, err)
	}
	if _, err := DeleteCollectorSet(dir, "b set"); !errors.Is(err, ErrCollectorSetNotFound) {
		t.Errorf("second delete: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, setsDir))
	for _, e := range entries {
		if strings.Contains(e.Name(), tempMarker) {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// TestDamagedDefinitionCostsOnlyItself: a cut, a foreign and an invalid
// definition are each reported with their file; the good set is read;
// the damaged ones can be deleted or replaced.
func TestDamagedDefinitionCostsOnlyItself(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := CreateCollectorSet(dir, collSet("good"), false); err != nil {
		t.Fatal(err)
	}
	full := collSet("cut").XML()
	damaged := map[string]string{
		"cut":     string(full[:len(full)/2]),
		"trace":   "<DataCollectorSet><TraceDataCollector/></DataCollectorSet>",
		"invalid": strings.Replace(string(collSet("invalid").XML()), "<SampleInterval>15<", "<SampleInterval>0<", 1),
	}
	for name, text := range damaged {
		if err := os.WriteFile(filepath.Join(dir, setsDir, name+".xml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A huge (sparse) file is refused by its size, not read.
	huge := filepath.Join(dir, setsDir, "huge.xml")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, collectorset.MaxXMLSize+1); err != nil {
		t.Fatal(err)
	}
	damaged["huge"] = "larger than"
	cs, err := ReadCollectorSets(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(setNames(cs), []string{"good"}) || len(cs.Problems) != len(damaged) {
		t.Fatalf("sets %v, problems %v", setNames(cs), cs.Problems)
	}
	for _, p := range cs.Problems {
		var fe *SetFileError
		if !errors.As(p, &fe) || damaged[fe.Name] == "" || fe.File != filepath.Join(dir, setsDir, fe.Name+".xml") || !strings.Contains(p.Error(), fe.File) {
			t.Errorf("problem %v does not name a damaged set and its file", p)
		}
	}
	if _, err := ReadCollectorSet(dir, "cut"); err == nil || !strings.Contains(err.Error(), "cut.xml") {
		t.Errorf("read of the cut set: %v", err)
	}
	if _, err := DeleteCollectorSet(dir, "cut"); err != nil {
		t.Errorf("delete of a damaged set: %v", err)
	}
	if err := UpdateCollectorSet(dir, collSet("invalid")); err != nil {
		t.Errorf("replacing a damaged set: %v", err)
	}
}

// TestCollectorSetsBetweenUsers plays root (system sets), Alice and Bob:
// any user reads the system sets; nobody but their owner changes or
// deletes a set; another user's state directory is refused; a symbolic
// link, a FIFO and a file of another user planted among Bob's definitions
// are refused one by one, and the secret behind the link is not read.
func TestCollectorSetsBetweenUsers(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		setsUserStep(t, step)
		return
	}
	r := asuser.New(t)
	shared := r.SharedDir()
	system := filepath.Join(shared, "system")
	if err := CreateCollectorSet(system, collSet("sys", `\Memory\Available MBytes`), false); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(shared, "..", "secret.xml")
	if err := os.WriteFile(secret, collSet("secret").XML(), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"SYSTEM=" + system, "ALICE_DIR=" + filepath.Join(shared, "alice"), "BOB_DIR=" + filepath.Join(shared, "bob")}
	run := func(u asuser.User, step string) {
		t.Helper()
		if out, err := r.Run(u, "TestCollectorSetsBetweenUsers", step, env...); err != nil {
			t.Fatalf("%s, step %s: %s", u.Name, step, asuser.Failed(out, err))
		}
	}
	run(asuser.Bob, "bob-creates")
	run(asuser.Alice, "alice-tries")
	// Planted among Bob's definitions (by someone who could write there
	// once): a link to root's secret, a FIFO, a file of Alice's.
	bobSets := filepath.Join(shared, "bob", setsDir)
	if err := os.Symlink(secret, filepath.Join(bobSets, "link.xml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(bobSets, "fifo.xml"), 0o644); err != nil {
		t.Fatal(err)
	}
	alices := filepath.Join(bobSets, "alices.xml")
	if err := os.WriteFile(alices, collSet("alices").XML(), 0o644); err != nil {
		t.Fatal(err)
	}
	r.Own(alices, asuser.Alice)
	run(asuser.Bob, "bob-reads")
	if _, err := os.Stat(secret); err != nil {
		t.Errorf("root's file behind the link: %v", err)
	}
	if cs, err := ReadCollectorSets(system); err != nil || !reflect.DeepEqual(setNames(cs), []string{"sys"}) {
		t.Errorf("system sets after the users: %v, %v", setNames(cs), err)
	}
}

func setsUserStep(t *testing.T, step string) {
	system, alice, bob := os.Getenv("SYSTEM"), os.Getenv("ALICE_DIR"), os.Getenv("BOB_DIR")
	sees := func(dir string, want ...string) {
		t.Helper()
		cs, err := ReadCollectorSets(dir)
		if err != nil || len(cs.Problems) != 0 || !reflect.DeepEqual(setNames(cs), want) {
			t.Errorf("sets of %s: %v, problems %v, %v; want %v", dir, setNames(cs), cs.Problems, err, want)
		}
	}
	switch step {
	case "bob-creates":
		if err := CreateCollectorSet(bob, collSet("bobs"), false); err != nil {
			t.Fatal(err)
		}
		sees(bob, "bobs")
		sees(system, "sys")
	case "alice-tries":
		if err := CreateCollectorSet(alice, collSet("mine"), false); err != nil {
			t.Fatal(err)
		}
		sees(alice, "mine")
		sees(system, "sys")
		// Root's sets: readable, not writable.
		for what, err := range map[string]error{
			"create": CreateCollectorSet(system, collSet("alices"), false),
			"update": UpdateCollectorSet(system, collSet("sys")),
			"delete": func() error { _, err := DeleteCollectorSet(system, "sys"); return err }(),
		} {
			if !errors.Is(err, fs.ErrPermission) {
				t.Errorf("%s in the system sets: %v; want permission denied", what, err)
			}
		}
		// Bob's sets: his state directory is not trusted by Alice at all.
		for what, err := range map[string]error{
			"read":   func() error { _, err := ReadCollectorSets(bob); return err }(),
			"create": CreateCollectorSet(bob, collSet("alices"), false),
			"update": UpdateCollectorSet(bob, collSet("bobs")),
			"delete": func() error { _, err := DeleteCollectorSet(bob, "bobs"); return err }(),
		} {
			var te *TrustError
			if !errors.As(err, &te) || !strings.Contains(err.Error(), "owned by uid 61002") {
				t.Errorf("%s in Bob's sets: %v; want his directory refused", what, err)
			}
		}
	case "bob-reads":
		cs, err := ReadCollectorSets(bob)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(setNames(cs), []string{"bobs"}) {
			t.Errorf("sets %v; want only bobs", setNames(cs))
		}
		want := map[string]string{"link": "symbolic link", "fifo": "not a regular file", "alices": "owned by uid 61001"}
		for _, p := range cs.Problems {
			var fe *SetFileError
			if !errors.As(p, &fe) || want[fe.Name] == "" || !strings.Contains(p.Error(), want[fe.Name]) {
				t.Errorf("problem %v", p)
				continue
			}
			delete(want, fe.Name)
		}
		if len(want) != 0 {
			t.Errorf("not refused: %v (problems %v)", want, cs.Problems)
		}
		// Deleting the planted link removes the link, not its target.
		if _, err := DeleteCollectorSet(bob, "link"); err != nil {
			t.Error(err)
		}
		sees(system, "sys")
	default:
		t.Fatalf("unknown step %q", step)
	}
}
