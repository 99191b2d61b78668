package collect

import "testing"

func TestTypeOf(t *testing.T) {
	tests := []struct {
		name string
		want QueryType
	}{
		{"Global", QueryGlobal},
		{"global", QueryGlobal},
		{"", QueryGlobal}, // the SDK sample: an empty name is Global
		{"   ", QueryGlobal},
		{"Costly", QueryCostly},
		{"COSTLY", QueryCostly},
		{"Foreign host 2 4", QueryForeign},
		{"2 4", QueryItems},
		{"Counter 009", QueryItems},
		{"Globalx", QueryItems},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TypeOf(tt.name); got != tt.want {
				t.Errorf("TypeOf(%q) = %d, want %d", tt.name, got, tt.want)
			}
		})
	}
}

func TestInList(t *testing.T) {
	tests := []struct {
		x    uint32
		s    string
		want bool
	}{
		{2, "2 4", true},
		{4, "2 4", true},
		{3, "2 4", false},
		{4, "  2   4  ", true},
		{23, "2 3", false}, // whole words, not prefixes
		{2, "23", false},   // nor digits inside a number
		{4, "2x 4", true},  // a bad word is skipped, the list goes on
		{2, "2x 4", false}, // ... and does not count as 2
		{238, "238", true}, // the only word
		{0, "4294967296", false},
		{4294967295, "4294967295", true},
		{0, "", false},
		{7, "-7", false},
	}
	for _, tt := range tests {
		if got := InList(tt.x, tt.s); got != tt.want {
			t.Errorf("InList(%d, %q) = %v, want %v", tt.x, tt.s, got, tt.want)
		}
	}
}

func TestSupports(t *testing.T) {
	objs := []uint32{1500, 1502}
	tests := []struct {
		name          string
		plain, costly bool
	}{
		{"Global", true, false},
		{"", true, false},
		{"Costly", false, true},
		{"Foreign srv 1500", false, false},
		{"1500", true, true},
		{"2 4 1502", true, true},
		{"2 4", false, false},
		{"Counter 009", false, false},
		{"Help", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Supports(tt.name, objs); got != tt.plain {
				t.Errorf("Supports = %v, want %v", got, tt.plain)
			}
			if got := SupportsCostly(tt.name, objs); got != tt.costly {
				t.Errorf("SupportsCostly = %v, want %v", got, tt.costly)
			}
		})
	}
}
