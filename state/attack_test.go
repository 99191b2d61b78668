package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/internal/asuser"
)

// TestAttacksOnTheStateDirectory plays a local user (Alice) preparing a
// state directory that root then uses with PERFC_STATE_DIR:
//
//   - her own directory, world-writable, with a registration record and
//     a manifests/ that is a symbolic link to a directory of root's;
//   - a directory root made world-writable by mistake, where she plants a
//     symbolic link as manifests/ and one as providers.json, pointing at
//     root's files.
//
// Root's lodctr, unlodctr and every reader must refuse each directory,
// naming it and the fix, and nothing of root's may be read or deleted.
// Before the state package, root's registration deleted the *.man files
// of the linked directory and read the linked record.
func TestAttacksOnTheStateDirectory(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		aliceStep(t, step)
		return
	}
	r := asuser.New(t)
	shared := r.SharedDir()
	// Root's files the attack aims at.
	victim := filepath.Join(shared, "..", "victim")
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	victimMan := filepath.Join(victim, guid(9)+"-000000000000.man")
	secret := filepath.Join(victim, "secret")
	for _, f := range []string{victimMan, secret} {
		if err := os.WriteFile(f, []byte("root's"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The directory root left world-writable.
	rootDir := filepath.Join(shared, "root-state")
	if err := os.Mkdir(rootDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(rootDir, 0o777); err != nil {
		t.Fatal(err)
	}
	aliceDir := filepath.Join(shared, "alice-state")
	if out, err := r.Run(asuser.Alice, "TestAttacksOnTheStateDirectory", "plant", "ALICE_DIR="+aliceDir, "ROOT_DIR="+rootDir, "VICTIM="+victim, "SECRET="+secret); err != nil {
		t.Fatal(asuser.Failed(out, err))
	}
	m, data := genManifest(t, guid(1), "Root's", testSet{guid(0x11), "Root Set"})
	tests := []struct {
		dir, want string
	}{
		{aliceDir, "is owned by uid 61001"},
		{rootDir, "run: chmod 755 " + rootDir},
	}
	for _, tc := range tests {
		_, rerr := Register(tc.dir, m, data, "gen.man", RegisterOptions{})
		_, uerr := Unregister(tc.dir, guid(9))
		_, err := Read(tc.dir)
		_, terr := Titles(tc.dir, nil)
		for _, err := range []error{rerr, uerr, err, terr} {
			var te *TrustError
			if !errors.As(err, &te) || te.Path != tc.dir || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %v; want the state directory refused with %q", tc.dir, err, tc.want)
			}
		}
	}
	if _, err := os.Stat(victimMan); err != nil {
		t.Errorf("root's file behind the symbolic link was deleted: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(rootDir, titlesFile)); len(b) != 0 {
		t.Errorf("root wrote into the planted directory")
	}
}

// TestAttackBetweenUsers plays the attack between two unprivileged users:
// Alice offers a shared, world-writable state directory whose manifests/
// is a symbolic link to Bob's own directory of manifests; Bob registers
// and unregisters with it. Bob's perfc must refuse the directory and
// leave his files alone (before the state package, his unregistration
// deleted the *.man files of his directory).
func TestAttackBetweenUsers(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		bobs, offered := os.Getenv("BOBS"), os.Getenv("OFFERED")
		switch step {
		case "bob-files":
			if err := os.Mkdir(bobs, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(bobs, guid(9)+"-000000000000.man"), []byte("bob's"), 0o644); err != nil {
				t.Fatal(err)
			}
		case "alice-offers":
			if err := os.Mkdir(offered, 0o777); err != nil {
				t.Fatal(err)
			}
			os.Chmod(offered, 0o777)
			if err := os.Symlink(bobs, filepath.Join(offered, manifestDir)); err != nil {
				t.Fatal(err)
			}
			record := `{"version": 1, "providers": [{"guid": "` + guid(9) + `", "manifest": "manifests/` + guid(9) + `-000000000000.man", "sets": []}]}`
			if err := os.WriteFile(filepath.Join(offered, recordFile), []byte(record), 0o666); err != nil {
				t.Fatal(err)
			}
		case "bob-uses":
			m, data := genManifest(t, guid(1), "Bob's", testSet{guid(0x11), "Bob Set"})
			_, rerr := Register(offered, m, data, "gen.man", RegisterOptions{})
			_, uerr := Unregister(offered, guid(9))
			for _, err := range []error{rerr, uerr} {
				var te *TrustError
				if !errors.As(err, &te) || te.Path != offered || !strings.Contains(err.Error(), "owned by uid 61001") {
					t.Errorf("error %v; want %s refused as Alice's", err, offered)
				}
			}
			if _, err := os.Stat(filepath.Join(bobs, guid(9)+"-000000000000.man")); err != nil {
				t.Errorf("Bob's manifest was deleted: %v", err)
			}
		default:
			t.Fatalf("unknown step %q", step)
		}
		return
	}
	r := asuser.New(t)
	env := []string{"BOBS=" + filepath.Join(r.SharedDir(), "bobs"), "OFFERED=" + filepath.Join(r.SharedDir(), "offered")}
	for _, s := range []struct {
		u    asuser.User
		step string
	}{{asuser.Bob, "bob-files"}, {asuser.Alice, "alice-offers"}, {asuser.Bob, "bob-uses"}} {
		if out, err := r.Run(s.u, "TestAttackBetweenUsers", s.step, env...); err != nil {
			t.Fatalf("%s, step %s: %s", s.u.Name, s.step, asuser.Failed(out, err))
		}
	}
}

// aliceStep is Alice's part of the attacks.
func aliceStep(t *testing.T, step string) {
	if step != "plant" {
		t.Fatalf("unknown step %q", step)
	}
	alice, root := os.Getenv("ALICE_DIR"), os.Getenv("ROOT_DIR")
	if err := os.Mkdir(alice, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(alice, 0o777)
	record := `{"version": 1, "providers": [{"guid": "` + guid(9) + `", "manifest": "manifests/` + guid(9) + `-000000000000.man", "sets": []}]}`
	for _, dir := range []string{alice, root} {
		if err := os.Symlink(os.Getenv("VICTIM"), filepath.Join(dir, manifestDir)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(alice, recordFile), []byte(record), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(os.Getenv("SECRET"), filepath.Join(root, recordFile)); err != nil {
		t.Fatal(err)
	}
}

// TestCheckExecutable: a V1 provider's executable that another user could
// replace is refused; root's and one's own are accepted.
func TestCheckExecutable(t *testing.T) {
	if step, ok := asuser.Step(); ok {
		if step != "own" {
			t.Fatalf("unknown step %q", step)
		}
		dir := os.Getenv("DIR")
		os.Mkdir(filepath.Join(dir, "alice"), 0o755)
		for _, f := range []string{"alice/prov", "alice-prov"} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	r := asuser.New(t)
	dir := r.SharedDir()
	if out, err := r.Run(asuser.Alice, "TestCheckExecutable", "own", "DIR="+dir); err != nil {
		t.Fatal(asuser.Failed(out, err))
	}
	write := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	rootOK := write("root/prov", 0o755)
	worldWritable := write("root/ww", 0o777)
	groupWritable := write("root/gw", 0o775)
	inWritableDir := write("wdir/prov", 0o755)
	os.Chmod(filepath.Dir(inWritableDir), 0o777)
	inAliceDir := write("alice/rootprov", 0o755) // root's file in Alice's directory
	link := filepath.Join(dir, "root", "link")
	os.Symlink(filepath.Join(dir, "alice-prov"), link)
	tests := []struct {
		path string
		euid int
		want string // "" = accepted
	}{
		{rootOK, 0, ""},
		{rootOK, 61002, ""}, // root's file, run by Bob
		{filepath.Join(dir, "alice-prov"), 61001, ""},
		{filepath.Join(dir, "alice-prov"), 0, "owned by uid 61001"},
		{filepath.Join(dir, "alice-prov"), 61002, "owned by uid 61001"},
		{worldWritable, 0, "writable by other users"},
		{groupWritable, 0, "writable by other users"},
		{inWritableDir, 0, "writable by other users"},
		{inAliceDir, 0, "owned by uid 61001"},
		{link, 0, "owned by uid 61001"},
		{"relative/prov", 0, "not an absolute path"},
	}
	for _, tc := range tests {
		err := CheckExecutable(tc.path, tc.euid)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckExecutable(%s, %d) = %v; want %q", tc.path, tc.euid, err, tc.want)
		}
	}
}
