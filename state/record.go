package state

// Registration files (providers.json, v1.json) are read entry by entry,
// so that a damaged entry, or a file cut short, costs only what it
// describes.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"golang.org/x/sys/unix"
)

// entry is one element of a record file's "providers" list: decoded, or
// kept as written when it could not be (a writer writes it back
// unchanged, so a damaged entry costs only itself).
type entry[T any] struct {
	reg T
	raw json.RawMessage // non-nil: the entry as written, not decoded
	key string          // the raw entry's "guid" or "name", when readable
	err error
}

// recordFile is a registration file as read.
type record[T any] struct {
	entries []entry[T]
	owner   uint32 // uid owning the file, for registrations without publishers
	damaged error  // the file as a whole could not be read; entries holds what came before the damage
}

// repairHint says how to repair a damaged registration file.
func repairHint(path string, v1 bool) string {
	if v1 {
		return fmt.Sprintf("repair: remove it (rm %s) and register the V1 providers again with perfc lodctr /v1:FILE", path)
	}
	return fmt.Sprintf("repair: remove it (rm %s) and register the manifests again with perfc lodctr, or remove one provider with perfc unlodctr GUID", path)
}

// parseRecord decodes a registration file. The entries before any damage
// (a truncated file, a syntax error) are kept; an entry that is valid JSON
// but not a valid registration is kept raw and reported.
func parseRecord[T any](path string, b []byte, v1 bool, validate func(*T) error) record[T] {
	if rec, ok := parseWholeRecord(b, validate); ok {
		return rec
	}
	var rec record[T]
	var raws []json.RawMessage
	version := 0
	// decode keeps the entries read so far: all of them for a whole file,
	// those before the damage for a file cut short (the format version
	// being unknown when "providers" came first and the file ends in it).
	decode := func() {
		for n, raw := range raws {
			rec.entries = append(rec.entries, decodeEntry(path, n, raw, v1, validate))
		}
	}
	fail := func(err error) record[T] {
		if version == recordFormat || version == 0 {
			decode()
		}
		rec.damaged = fmt.Errorf("registration file %s is damaged (%v): the registrations after the damage are left out; %s", path, err, repairHint(path, v1))
		return rec
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil {
		return fail(err)
	} else if t != json.Delim('{') {
		return fail(errors.New("not a JSON object"))
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fail(err)
		}
		switch t {
		case "version":
			if err := dec.Decode(&version); err != nil {
				return fail(err)
			}
			if version != recordFormat {
				raws = nil
				return fail(fmt.Errorf("format version %d, this perfc reads version %d", version, recordFormat))
			}
		case "providers":
			if t, err := dec.Token(); err != nil {
				return fail(err)
			} else if t == nil {
				continue
			} else if t != json.Delim('[') {
				return fail(errors.New(`"providers" is not a list`))
			}
			for dec.More() {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return fail(err)
				}
				raws = append(raws, raw)
			}
			if _, err := dec.Token(); err != nil {
				return fail(err)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fail(err)
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail(err)
	}
	if version != recordFormat {
		raws = nil
		return fail(errors.New("no format version"))
	}
	decode()
	return rec
}

// parseWholeRecord decodes a sound registration file in one pass: the
// common case. ok is false when anything is wrong with it; parseRecord
// then finds what, entry by entry.
func parseWholeRecord[T any](b []byte, validate func(*T) error) (rec record[T], ok bool) {
	var whole struct {
		Version   int `json:"version"`
		Providers []T `json:"providers"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&whole); err != nil || whole.Version != recordFormat {
		return rec, false
	}
	if _, err := dec.Token(); err == nil {
		return rec, false // more after the object
	}
	rec.entries = make([]entry[T], len(whole.Providers))
	for i := range whole.Providers {
		if validate(&whole.Providers[i]) != nil {
			return record[T]{}, false
		}
		rec.entries[i].reg = whole.Providers[i]
	}
	return rec, true
}

func decodeEntry[T any](path string, n int, raw json.RawMessage, v1 bool, validate func(*T) error) entry[T] {
	var e entry[T]
	var key struct {
		GUID string `json:"guid"`
		Name string `json:"name"`
	}
	json.Unmarshal(raw, &key)
	e.key = key.GUID
	if e.key == "" {
		e.key = key.Name
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(&e.reg)
	if err == nil {
		err = validate(&e.reg)
	}
	if err != nil {
		e.raw = raw
		cmd := "perfc unlodctr " + e.key
		if v1 {
			cmd = "perfc unlodctr /v1:" + e.key
		}
		e.err = fmt.Errorf("registration file %s, entry %d (%q) is left out: %v; repair: remove it (%s), then register it again", path, n+1, e.key, err, cmd)
	}
	return e
}

// marshalRecord writes a registration file: the decoded entries as they
// are now, the undecodable ones as they were read.
func marshalRecord[T any](entries []entry[T]) ([]byte, error) {
	list := make([]json.RawMessage, 0, len(entries))
	for _, e := range entries {
		if e.raw != nil {
			list = append(list, e.raw)
			continue
		}
		b, err := json.Marshal(&e.reg)
		if err != nil {
			return nil, err
		}
		list = append(list, b)
	}
	b, err := json.MarshalIndent(struct {
		Version   int               `json:"version"`
		Providers []json.RawMessage `json:"providers"`
	}{recordFormat, list}, "", "\t")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// readRecord reads a registration file of d; a missing file is empty.
func readRecord[T any](d *dir, name string, v1 bool, validate func(*T) error) (record[T], error) {
	var rec record[T]
	if d == nil {
		return rec, nil
	}
	b, err := d.read(name, "registration file")
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, err
	}
	rec = parseRecord(d.join(name), b, v1, validate)
	var st unix.Stat_t
	if unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		rec.owner = st.Uid
	}
	return rec, nil
}

func (rec *record[T]) valid() []T {
	var out []T
	for _, e := range rec.entries {
		if e.raw == nil {
			out = append(out, e.reg)
		}
	}
	return out
}

func (rec *record[T]) problems() []error {
	var out []error
	if rec.damaged != nil {
		out = append(out, rec.damaged)
	}
	for _, e := range rec.entries {
		if e.err != nil {
			out = append(out, e.err)
		}
	}
	return out
}

// writable refuses to rewrite a file whose end was lost: writing it back
// would make the loss permanent.
func (rec *record[T]) writable() error {
	if rec.damaged != nil {
		return fmt.Errorf("not changing it: %w", rec.damaged)
	}
	return nil
}
