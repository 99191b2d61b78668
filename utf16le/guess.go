package utf16le

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/transform"
)

// rivalMargin is how far below the best score another reading may be and
// still be named as a rival: about two letters of a single-byte code page
// or one character of a double-byte one.
const rivalMargin = 4

// guess chooses among the ANSI code pages for b, the text from the line
// of its first byte that is not ASCII up to Window bytes on (atEOF: up to
// the end). Each code page that reads every byte (golang.org/x/text's
// decoder gives no U+FFFD and no C1 control) is scored by plausibility;
// the best wins, ties going to the earlier in ANSICodePages. alike are
// the others that read b as the same text; rivals those that read it
// differently but score within rivalMargin of the best.
func guess(b []byte, atEOF bool) (best CodePage, alike, rivals []CodePage) {
	type reading struct {
		cp    CodePage
		text  string
		score float64
	}
	var all []reading
	for _, p := range pages[:guessed] {
		out, n, bad := newDecoder(p.cp).decode(nil, b, atEOF)
		if bad != nil || (atEOF && n < len(b)) {
			continue
		}
		text := string(out)
		all = append(all, reading{p.cp, text, plausibility(p, text)})
	}
	if len(all) == 0 {
		return pages[0].cp, nil, nil // cannot happen: 1256 defines every byte
	}
	top := 0
	for i, r := range all {
		if r.score > all[top].score {
			top = i
		}
	}
	seen := map[string]bool{all[top].text: true}
	for _, r := range all {
		switch {
		case r.cp == all[top].cp:
		case r.text == all[top].text:
			alike = append(alike, r.cp)
		case !seen[r.text] && r.score > 0 && r.score >= all[top].score-rivalMargin:
			seen[r.text] = true
			rivals = append(rivals, r.cp)
		}
	}
	return all[top].cp, alike, rivals
}

// script is the writing system of a letter, as plausibility groups them.
type script uint8

const (
	scNone     script = iota // not a letter: a word ends here
	scLatin                  // ASCII letters included
	scCyrillic               //
	scGreek                  //
	scHebrew                 //
	scArabic                 //
	scThai                   //
	scHan                    // CJK ideographs
	scKana                   // hiragana, full-width katakana, the Japanese length and iteration marks
	scHalfKana               // half-width katakana (one byte in 932)
	scHangul                 //
	scMark                   // a combining mark: it belongs to the letter before it
	scOther                  // a letter of another script
)

// scriptOf classifies r. Modifier letters of the Latin and Greek blocks
// (ˆ, ˜) and the florin sign ƒ, which Unicode counts as letters but no
// text spells words with, are not letters here: they are what a
// single-byte code page makes of a double-byte character's lead byte.
func scriptOf(r rune) script {
	switch {
	case r < utf8.RuneSelf:
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			return scLatin
		}
		return scNone
	case r >= 0xFF66 && r <= 0xFF9F:
		return scHalfKana
	case r == 0x3005 || r == 0x30FC || r == 0x309D || r == 0x309E || r == 0x30FD || r == 0x30FE:
		return scKana
	case unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me) && unicode.Is(unicode.Inherited, r):
		return scMark // a combining mark of any script (accents)
	case unicode.In(r, unicode.Mn, unicode.Mc, unicode.Me):
		// A mark of one script (Thai vowel signs, Hebrew points): that
		// script's, so that it does not sit on another's letters.
		return scriptOfLetter(r)
	case !unicode.IsLetter(r) || r == 'ƒ' || r >= 0x02B0 && r <= 0x02FF:
		return scNone
	}
	return scriptOfLetter(r)
}

// scriptOfLetter is the script of a letter or mark that is not ASCII.
func scriptOfLetter(r rune) script {
	switch {
	case unicode.Is(unicode.Latin, r):
		return scLatin
	case unicode.Is(unicode.Cyrillic, r):
		return scCyrillic
	case unicode.Is(unicode.Greek, r):
		return scGreek
	case unicode.Is(unicode.Hebrew, r):
		return scHebrew
	case unicode.Is(unicode.Arabic, r):
		return scArabic
	case unicode.Is(unicode.Thai, r):
		return scThai
	case unicode.Is(unicode.Han, r):
		return scHan
	case unicode.In(r, unicode.Hiragana, unicode.Katakana):
		return scKana
	case unicode.Is(unicode.Hangul, r):
		return scHangul
	}
	return scOther
}

// commonPunct are the characters besides letters that real text holds
// next to words in any of the code pages: quotation marks, dashes, the
// ellipsis, the bullet, the no-break space, degrees, currency, CJK and
// full-width punctuation.
func commonPunct(r rune) bool {
	switch r {
	case 0xA0, '«', '»', '°', '§', '©', '®', '·', '±', '€', '£', '¥', '™', '–', '—', '‘', '’', '‚', '“', '”', '„', '…', '•', '№':
		return true
	}
	return r >= 0x3000 && r <= 0x303F || r >= 0xFF01 && r <= 0xFF65 && scriptOf(r) == scNone || r == 0x30FB
}

// plausibility scores text as a reading of its bytes in code page p: the
// bytes of non-ASCII characters that sit in plausible words count for,
// those in implausible words twice against. A word (a run of letters and
// combining marks) is plausible when its letters are of one script, with
// these rules:
//
//   - Latin: at most one more non-ASCII letter than ASCII ones ("físico",
//     "été"; not "Ïðîöåññîð", Cyrillic read as Western European), and no
//     capital right after a small letter at a non-ASCII letter;
//   - Cyrillic and Greek: no ASCII letters, no capital after a small
//     letter ("ЕректергбуфЮт" is Greek read as Cyrillic);
//   - Greek and Hebrew: no final form (ς; ך ם ן ף ץ) inside a word
//     (Russian's common т, к, н read as Greek or Hebrew);
//   - Cyrillic also: the letter order every Cyrillic language keeps
//     (cyrillicOK); Thai: the order of its vowels and marks (thaiOK);
//   - Hebrew, Arabic, Thai: no ASCII letters, no mark before a letter;
//   - CJK ideographs and kana together (Japanese) or alone, Hangul alone:
//     ASCII letters may run into them ("CPU時間"), but a lone character
//     between ASCII letters ("f﨎ico", Western European read as Japanese)
//     is implausible;
//   - half-width katakana alone count a quarter: rare in today's text.
//
// A double-byte character counts by the rarity of where its code page
// keeps it (cjkWeight): the common planes of JIS X 0208, GB2312,
// KS X 1001 and Big5 count fully, their extensions and user areas against.
// Other non-ASCII characters next to letters ("£¹cznoœæ", Polish read as
// Western European) count against unless they are common punctuation
// (commonPunct). Rare letters count less: Icelandic ð and þ (which
// Turkish ğ and ş become in 1252), Greek ΐ and ΰ.
func plausibility(p page, text string) float64 {
	var enc transform.Transformer
	if p.dbcs {
		enc = p.enc.NewEncoder()
	}
	weight := func(r rune) float64 { return float64(charLen(p.cp, p.dbcs, r)) }
	runes := []rune(text)
	score := 0.0
	for i := 0; i < len(runes); {
		r := runes[i]
		if scriptOf(r) == scNone {
			if r >= utf8.RuneSelf && !commonPunct(r) {
				prev := i > 0 && scriptOf(runes[i-1]) != scNone
				next := i+1 < len(runes) && scriptOf(runes[i+1]) != scNone
				switch {
				case prev && next:
					score -= 2 * weight(r)
				case prev || next:
					score -= weight(r)
				default:
					score -= weight(r) / 4
				}
			}
			i++
			continue
		}
		j := i
		for j < len(runes) && scriptOf(runes[j]) != scNone {
			j++
		}
		score += wordScore(p, enc, runes[i:j], weight)
		i = j
	}
	return score
}

// wordScore scores one word (plausibility).
func wordScore(p page, enc transform.Transformer, word []rune, weight func(rune) float64) float64 {
	var total float64 // the weight of the word's non-ASCII characters
	ascii, latin := 0, 0
	var scripts uint32
	plausible := scriptOf(word[0]) != scMark
	for k, r := range word {
		s := scriptOf(r)
		if r < utf8.RuneSelf {
			ascii++
			continue
		}
		total += weight(r)
		if s == scMark {
			continue
		}
		scripts |= 1 << s
		if s == scLatin {
			latin++
		}
		if k > 0 && unicode.IsLower(word[k-1]) && unicode.IsUpper(r) || k+1 < len(word) && unicode.IsLower(r) && unicode.IsUpper(word[k+1]) {
			plausible = false
		}
		// Final forms end words: Greek ς, Hebrew ך ם ן ף ץ.
		if strings.ContainsRune("ςךםןףץ", r) && k+1 < len(word) && scriptOf(word[k+1]) == s {
			plausible = false
		}
	}
	if total == 0 {
		return 0
	}
	has := func(ss ...script) bool {
		var m uint32
		for _, s := range ss {
			m |= 1 << s
		}
		return scripts&^m == 0
	}
	q := func(r rune) float64 { return 1 }
	switch {
	case has(scLatin):
		plausible = plausible && latin <= ascii+1
		q = func(r rune) float64 {
			switch r {
			case 'ð', 'Ð', 'þ', 'Þ', 'đ', 'Đ', 'ţ', 'Ţ', 'ŕ', 'Ŕ', 'ĺ', 'Ĺ':
				return 0.5
			}
			return 1
		}
	case has(scCyrillic):
		plausible = plausible && ascii == 0 && cyrillicOK(word)
	case has(scThai):
		plausible = plausible && ascii == 0 && thaiOK(word)
	case has(scHebrew), has(scArabic):
		plausible = plausible && ascii == 0
	case has(scGreek):
		plausible = plausible && ascii == 0
		q = func(r rune) float64 {
			if r == 'ΐ' || r == 'ΰ' {
				return 0.25
			}
			return 1
		}
	case has(scHan, scKana), has(scHangul), has(scHalfKana):
		plausible = plausible && !lonelyBetweenASCII(word)
		if scripts&(1<<scHalfKana) != 0 {
			q = func(rune) float64 { return 0.25 }
		} else {
			q = func(r rune) float64 { return cjkWeight(p.cp, enc, r) }
		}
	default:
		plausible = false // scripts mixed in one word
	}
	if !plausible {
		return -2 * total
	}
	s := 0.0
	for _, r := range word {
		if r >= utf8.RuneSelf {
			s += weight(r) * q(r)
		}
	}
	return s
}

// cyrillicOK checks what every Cyrillic language's words keep: a word
// does not start with ь, ъ or ы, й follows a vowel (or starts the word),
// and a word of three letters or more in small letters has a vowel.
// Hebrew read as Cyrillic ("жйлшеп") breaks them.
func cyrillicOK(word []rune) bool {
	vowel := func(r rune) bool {
		return strings.ContainsRune("аеёиоуыэюяіїєўъАЕЁИОУЫЭЮЯІЇЄЎЪ", r)
	}
	switch word[0] {
	case 'ь', 'ъ', 'ы', 'Ь', 'Ъ', 'Ы':
		return false
	}
	vowels, lower := 0, true
	for k, r := range word {
		if vowel(r) {
			vowels++
		}
		if unicode.IsUpper(r) {
			lower = false
		}
		if (r == 'й' || r == 'Й') && k > 0 && !vowel(word[k-1]) || (r == 'й' || r == 'Й') && k > 0 && (word[k-1] == 'ъ' || word[k-1] == 'Ъ') {
			return false
		}
	}
	return vowels > 0 || !lower || len(word) < 3
}

// thaiOK checks the order of Thai script: a leading vowel (เ แ โ ใ ไ)
// before a consonant, a vowel sign above or below a consonant right
// after it, a tone mark after the consonant or its vowel sign, and a
// following vowel (ะ า ำ) after a consonant or a sign, and a vowel in a
// word of four letters or more. Bytes of other scripts read as Thai
// break it.
func thaiOK(word []rune) bool {
	consonant := func(r rune) bool { return r >= 0x0E01 && r <= 0x0E2E }
	aboveBelow := func(r rune) bool { return r == 0x0E31 || r >= 0x0E34 && r <= 0x0E3A }
	vowels := 0
	for k, r := range word {
		if r >= 0x0E30 && r <= 0x0E3A || r >= 0x0E40 && r <= 0x0E45 || r == 0x0E47 {
			vowels++
		}
		var prev rune
		if k > 0 {
			prev = word[k-1]
		}
		switch {
		case r >= 0x0E40 && r <= 0x0E44:
			if k+1 >= len(word) || !consonant(word[k+1]) {
				return false
			}
		case aboveBelow(r), r == 0x0E47, r == 0x0E4C, r == 0x0E4E:
			if !consonant(prev) {
				return false
			}
		case r >= 0x0E48 && r <= 0x0E4B, r == 0x0E4D:
			if !consonant(prev) && !aboveBelow(prev) {
				return false
			}
		case r == 0x0E30 || r == 0x0E32 || r == 0x0E33:
			if !consonant(prev) && !(prev >= 0x0E31 && prev <= 0x0E4E) {
				return false
			}
		}
	}
	return vowels > 0 || len(word) < 4
}

// lonelyBetweenASCII reports a single non-ASCII letter with ASCII letters
// right before and after it.
func lonelyBetweenASCII(word []rune) bool {
	for k := 1; k+1 < len(word); k++ {
		if word[k] >= utf8.RuneSelf && word[k-1] < utf8.RuneSelf && word[k+1] < utf8.RuneSelf {
			return true
		}
	}
	return false
}

// cjkWeight is how much a CJK letter r counts in a reading in code page
// cp, by where cp keeps it (r encoded back with enc, golang.org/x/text's
// encoder):
//
//   - 932: hiragana, katakana and the JIS X 0208 kanji (lead bytes 0x82,
//     0x83, 0x88-0x9F, 0xE0-0xEA) fully; NEC and IBM extensions against;
//   - 936: GB2312 (both bytes 0xA1 and up) fully, but the hanzi of the
//     rows 0xB0-0xC8, where KS X 1001 keeps Hangul, at three quarters, so
//     that Korean read as Chinese loses to Korean over a few characters;
//     GBK's extension against;
//   - 949: KS X 1001's Hangul (both bytes 0xA1 and up) fully, its Hanja
//     at half (Korean text rarely has words of Hanja alone); UHC's
//     extension against;
//   - 950: Big5's frequent hanzi (0xA440-0xC67E) fully, the less frequent
//     (0xC940-0xF9D5) at half, each at three quarters or less when its
//     second byte is 0xA1 and up (as every one of GB2312 and KS X 1001
//     text read as Big5 is, but only three in five of Big5 text), the rest
//     (ETEN and user areas) against.
func cjkWeight(cp CodePage, enc transform.Transformer, r rune) float64 {
	if enc == nil {
		return 1
	}
	var src [utf8.UTFMax]byte
	var dst [8]byte
	enc.Reset()
	nDst, _, err := enc.Transform(dst[:], src[:utf8.EncodeRune(src[:], r)], true)
	if err != nil && !errors.Is(err, transform.ErrShortDst) || nDst != 2 {
		return -0.5
	}
	lead, trail := dst[0], dst[1]
	switch cp {
	case 932:
		if lead == 0x82 || lead == 0x83 || lead >= 0x88 && lead <= 0x9F || lead >= 0xE0 && lead <= 0xEA {
			return 1
		}
	case 936:
		if lead >= 0xA1 && trail >= 0xA1 {
			if lead >= 0xB0 && lead <= 0xC8 {
				return 0.75
			}
			return 1
		}
	case 949:
		if lead >= 0xA1 && trail >= 0xA1 {
			if scriptOf(r) == scHan {
				return 0.5
			}
			return 1
		}
	case 950:
		// A reading whose second bytes are all 0xA1 and up looks like
		// GB2312 or KS X 1001 text (Big5 text has about two in five
		// below): such characters count less.
		low := trail < 0xA1
		switch {
		case lead >= 0xA4 && lead < 0xC6 || lead == 0xC6 && low:
			if low {
				return 1
			}
			return 0.75
		case lead >= 0xC9 && lead <= 0xF9:
			if low {
				return 0.5
			}
			return 0.4
		}
	}
	return -0.5
}
