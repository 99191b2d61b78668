package titles

import (
	"fmt"
	"strconv"
	"strings"
)

// Lang is a language of the title database, as Perflib names its
// subkeys: the primary language identifier of a Windows LANGID (the low 10
// bits), written as three hexadecimal digits ("009" English, "007" German,
// "00C" French, "011" Japanese, "012" Korean), except for Chinese and
// Portuguese, whose variants Windows keeps apart by the whole LANGID
// ("804" zh-CN, "404" zh-TW, "416" pt-BR, "816" pt-PT: "to retrieve
// Chinese and Portuguese text, specify both the primary and sublanguage
// identifiers"). LANGUAGES.md records the sources.
type Lang uint16

// The primary languages whose variants are languages of their own, and
// the variant a primary-only id ("004", "016") or a tag without a region
// stands for, as lodctr takes them.
const (
	primaryChinese    = 0x04
	primaryPortuguese = 0x16
	langChineseCN     = Lang(0x804)
	langPortugueseBR  = Lang(0x416)
)

// langOf is the Lang of a LANGID: its primary language, or for Chinese
// and Portuguese its whole id (a primary-only id taken as lodctr takes it).
func langOf(id uint16) Lang {
	primary := id & 0x3FF
	switch primary {
	case primaryChinese, primaryPortuguese:
		if full := Lang(id & 0xFFF); full != Lang(primary) {
			return full
		}
		if primary == primaryChinese {
			return langChineseCN
		}
		return langPortugueseBR
	}
	return Lang(primary)
}

// LangEnglish is language 009, the one every Windows title database has and
// the one perfc's built-in objects are named in.
const LangEnglish Lang = 0x009

// String returns the three-digit form Perflib uses ("007").
func (l Lang) String() string { return fmt.Sprintf("%03X", uint16(l)) }

// Tag returns the language's ISO 639-1 code ("de"), or "" when the
// table below does not know it.
func (l Lang) Tag() string {
	for _, x := range langTags {
		if x.id == l {
			return x.tag
		}
	}
	return ""
}

// langTags maps Windows primary language identifiers (winnt.h LANG_*) to
// ISO 639-1 codes, and Chinese's and Portuguese's variants to BCP 47 tags
// with their region: the languages Windows ships title databases in.
var langTags = [...]struct {
	id  Lang
	tag string
}{
	{0x01, "ar"}, {0x02, "bg"}, {0x03, "ca"}, {0x804, "zh-CN"}, {0x404, "zh-TW"}, {0x05, "cs"},
	{0x06, "da"}, {0x07, "de"}, {0x08, "el"}, {0x09, "en"}, {0x0A, "es"},
	{0x0B, "fi"}, {0x0C, "fr"}, {0x0D, "he"}, {0x0E, "hu"}, {0x0F, "is"},
	{0x10, "it"}, {0x11, "ja"}, {0x12, "ko"}, {0x13, "nl"}, {0x14, "nb"},
	{0x15, "pl"}, {0x416, "pt-BR"}, {0x816, "pt-PT"}, {0x18, "ro"}, {0x19, "ru"}, {0x1A, "hr"},
	{0x1B, "sk"}, {0x1D, "sv"}, {0x1E, "th"}, {0x1F, "tr"}, {0x22, "uk"},
	{0x24, "sl"}, {0x25, "et"}, {0x26, "lv"}, {0x27, "lt"},
}

// ParseLang reads a language as a person or a file names it:
//
//   - Perflib's hexadecimal id, "009", "007", "00C", with or without 0x,
//     or a whole LANGID ("409", "0x0407"): its primary language counts,
//     but for Chinese and Portuguese ("804", "404", "416", "816"; "004"
//     and "016" are zh-CN and pt-BR, as lodctr takes them);
//   - a language tag or culture, "de", "de-DE", "fr-CA", "zh-Hans",
//     "zh-TW", "pt-PT" (a manifest's <resources culture>);
//   - a POSIX locale, "de_DE.UTF-8", "ja_JP@euro"; "C" and "POSIX" are
//     English.
//
// Anything else is an error naming the forms it takes.
func ParseLang(s string) (Lang, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("titles: empty language (want a Perflib id such as 009 or 007, or a language tag such as de-DE)")
	}
	switch t {
	case "C", "POSIX":
		return LangEnglish, nil
	}
	h := t
	if len(h) > 2 && (h[:2] == "0x" || h[:2] == "0X") {
		h = h[2:]
	}
	if len(h) >= 3 && len(h) <= 4 && isHexString(h) {
		n, _ := strconv.ParseUint(h, 16, 16)
		if n&0x3FF != 0 {
			return langOf(uint16(n)), nil
		}
	}
	// A tag or a locale: its language, and for Chinese and Portuguese its
	// script or region ("zh-Hant", "zh_TW.UTF-8", "pt-PT").
	if i := strings.IndexAny(t, ".@"); i >= 0 {
		t = t[:i]
	}
	tag := strings.ToLower(strings.ReplaceAll(t, "_", "-"))
	lang, rest, _ := strings.Cut(tag, "-")
	switch lang {
	case "no", "nn":
		lang = "nb"
	case "zh":
		switch rest {
		case "tw", "hant", "hk", "mo", "hant-tw", "hant-hk", "hant-mo":
			return 0x404, nil
		}
		return langChineseCN, nil
	case "pt":
		if rest == "pt" {
			return 0x816, nil
		}
		return langPortugueseBR, nil
	}
	for _, x := range langTags {
		if x.tag == lang {
			return x.id, nil
		}
	}
	return 0, fmt.Errorf("titles: unknown language %q (want a Perflib id such as 009 or 007, a language tag such as de-DE, or a locale such as de_DE.UTF-8)", s)
}

func isHexString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// LangFromEnv returns the language of the environment's locale, as the C
// library chooses the messages' language: LC_ALL, then LC_MESSAGES, then
// LANG, the first that is set. An unset or unknown locale is English,
// as Windows' tools use 009 when the user's language has no subkey.
func LangFromEnv(getenv func(string) string) Lang {
	for _, k := range [...]string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(k); v != "" {
			if l, err := ParseLang(v); err == nil {
				return l
			}
			return LangEnglish
		}
	}
	return LangEnglish
}

// Over returns a database that names every index of base (English) in
// local's language where local has a name, and as base names it
// otherwise, with local's help texts over base's the same way: what a
// person working in local's language reads. Neither input is changed.
func Over(base, local *DB) *DB {
	base.mu.RLock()
	out := newDBSize(base.base, len(base.names))
	for i, n := range base.names {
		out.names[i] = n
	}
	for i, h := range base.helps {
		out.helps[i] = h
	}
	out.lastCounter = base.lastCounter
	base.mu.RUnlock()
	local.mu.RLock()
	defer local.mu.RUnlock()
	for i, n := range local.names {
		out.names[i] = n
	}
	for i, h := range local.helps {
		out.helps[i] = h
	}
	out.lastCounter = max(out.lastCounter, local.lastCounter)
	return out
}

// Missing returns the name indexes of base that local does not name, in
// increasing order: what a list in local's language lacks.
func Missing(base, local *DB) []uint32 {
	var out []uint32
	for _, e := range base.Entries() {
		if e.Name == "" {
			continue
		}
		if local.Name(e.Index) == "" {
			out = append(out, e.Index)
		}
	}
	return out
}
