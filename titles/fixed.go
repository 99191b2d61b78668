package titles

import (
	"errors"
	"fmt"
	"strings"
)

// SetAt stores name and help at a fixed even index, as built-in objects with
// English Windows' indexes need (Processor Information, whose table entry may
// be missing on an older list). An index that already holds the same name
// (case-insensitively) just gains the help text if it had none; an index
// holding another name is an error, so a built-in object can never silently
// rename a counter.
func (db *DB) SetAt(i uint32, name, help string) error {
	if i == 0 || i%2 != 0 {
		return fmt.Errorf("titles: set %q at %d: name indexes are even and non-zero", name, i)
	}
	if name == "" {
		return errors.New("titles: set: empty name")
	}
	if err := checkText(name); err != nil {
		return fmt.Errorf("titles: set: name %q %v", name, err)
	}
	if err := checkText(help); err != nil {
		return fmt.Errorf("titles: set: help text of %q %v", name, err)
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if old, ok := db.names[i]; ok && !strings.EqualFold(old, name) {
		return fmt.Errorf("titles: set %q at %d: index holds %q", name, i, old)
	}
	db.setName(i, name)
	if help != "" && db.helps[i+1] == "" {
		db.helps[i+1] = help
	}
	return nil
}
