package pgn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

func encode(t *testing.T, enc encoding.Encoding, text string) []byte {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDetectEncoding decodes the samples as they are (CCPD's Big5, xqdb's
// UTF-8) and re-encoded: Big5 and GBK read most byte strings as some
// Chinese text, so each must be told from the other on real records.
func TestDetectEncoding(t *testing.T) {
	files, err := filepath.Glob("testdata/*/*.pgn")
	if err != nil || len(files) == 0 {
		t.Fatal("no samples", err)
	}
	gb := simplifiedchinese.GB18030
	gbk := simplifiedchinese.GBK
	big5 := traditionalchinese.Big5
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := UTF8
		if strings.Contains(f, "ccpd") {
			want = Big5
		}
		text, got := Decode(data, AutoEncoding)
		if got != want || strings.ContainsRune(text, '\uFFFD') || !strings.Contains(text, "[Red ") {
			t.Errorf("%s: decoded as %v, want %v", f, got, want)
			continue
		}
		if want == Big5 && !strings.Contains(text, "炮") {
			t.Errorf("%s: no 炮 in the Big5 reading", f)
		}
		cases := []struct {
			name string
			data []byte
			want Encoding
		}{
			{"gb18030", encode(t, gb, text), GB18030},
			{"gbk", encode(t, gbk, text), GB18030},
			{"utf-8 with BOM", append([]byte("\xEF\xBB\xBF"), text...), UTF8},
			{"utf-16le", encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), text), UTF16LE},
			{"utf-16be", encode(t, unicode.UTF16(unicode.BigEndian, unicode.UseBOM), text), UTF16BE},
		}
		if b5, err := big5.NewEncoder().Bytes([]byte(text)); err == nil { // simplified characters have no Big5 form
			cases = append(cases, struct {
				name string
				data []byte
				want Encoding
			}{"big5", b5, Big5})
		}
		for _, c := range cases {
			if !strings.ContainsFunc(text, func(r rune) bool { return r > 0x7F }) && c.want != UTF16LE && c.want != UTF16BE && c.name != "utf-8 with BOM" {
				continue // ASCII reads as UTF-8 whatever it was written as
			}
			back, got := Decode(c.data, AutoEncoding)
			if got != c.want || back != text {
				t.Errorf("%s as %s: detected %v, want %v (text equal: %v)", f, c.name, got, c.want, back == text)
			}
		}
	}
}

// TestDecodeStrayByte: a stray byte in a UTF-8 file leaves it UTF-8 (the
// byte becomes U+FFFD in its game), and an explicit encoding is obeyed.
func TestDecodeStrayByte(t *testing.T) {
	data, err := os.ReadFile("testdata/xqdb_sample15/xqdb_sample15_chinese_simplified.pgn")
	if err != nil {
		t.Fatal(err)
	}
	i := len(data) / 2
	for data[i]&0xC0 == 0x80 { // the start of a character
		i++
	}
	stray := append(append(append([]byte{}, data[:i]...), 0xFF), data[i:]...)
	text, enc := Decode(stray, AutoEncoding)
	if enc != UTF8 || strings.Count(text, "\uFFFD") != 1 {
		t.Errorf("stray byte: %v, %d replacement characters", enc, strings.Count(text, "\uFFFD"))
	}
	if _, enc := Decode(data, GB18030); enc != GB18030 {
		t.Errorf("explicit GB18030 decoded as %v", enc)
	}
}

func TestParseEncoding(t *testing.T) {
	for name, want := range map[string]Encoding{"": AutoEncoding, "auto": AutoEncoding, "UTF-8": UTF8, "gbk": GB18030,
		"GB2312": GB18030, "gb18030": GB18030, "Big5": Big5, "cp950": Big5, "utf-16le": UTF16LE} {
		if got, err := ParseEncoding(name); err != nil || got != want {
			t.Errorf("ParseEncoding(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := ParseEncoding("latin1"); err == nil || !strings.HasPrefix(err.Error(), "pgn: ") {
		t.Errorf("ParseEncoding(latin1): %v", err)
	}
}
