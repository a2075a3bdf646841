package pgn

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// Encoding is a PGN file's text encoding.
type Encoding uint8

const (
	// AutoEncoding detects the encoding (see Decode).
	AutoEncoding Encoding = iota
	UTF8
	// GB18030 covers GBK and GB2312, which it extends.
	GB18030
	Big5
	UTF16LE
	UTF16BE
)

var encodingNames = [...]string{"auto", "utf-8", "gb18030", "big5", "utf-16le", "utf-16be"}

func (e Encoding) String() string {
	if int(e) < len(encodingNames) {
		return encodingNames[e]
	}
	return fmt.Sprintf("Encoding(%d)", e)
}

// ParseEncoding reads an encoding's name as a user gives it: auto, utf-8,
// gbk, gb2312, gb18030, big5, utf-16le, utf-16be (any case; utf8, cp936
// and cp950 too).
func ParseEncoding(name string) (Encoding, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "auto":
		return AutoEncoding, nil
	case "utf-8", "utf8":
		return UTF8, nil
	case "gbk", "gb2312", "gb18030", "cp936":
		return GB18030, nil
	case "big5", "big-5", "cp950":
		return Big5, nil
	case "utf-16le", "utf16le":
		return UTF16LE, nil
	case "utf-16be", "utf16be":
		return UTF16BE, nil
	}
	return AutoEncoding, fmt.Errorf("pgn: unknown encoding %q (auto, utf-8, gbk, gb18030, big5, utf-16le, utf-16be)", name)
}

func (e Encoding) decoder() *encoding.Decoder {
	switch e {
	case GB18030:
		return simplifiedchinese.GB18030.NewDecoder()
	case Big5:
		return traditionalchinese.Big5.NewDecoder()
	case UTF16LE:
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder()
	case UTF16BE:
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder()
	}
	return nil
}

// Decode turns a file's bytes into text. Bytes the encoding cannot read
// become U+FFFD, which the parser reports in the game they fall in, so
// one stray byte costs one game, not the file.
//
// AutoEncoding reads a byte-order mark (UTF-8 or UTF-16) if there is one;
// a file that is valid UTF-8 is UTF-8; otherwise it decodes the start of
// the file as UTF-8, GB18030 and Big5 and keeps the reading that scores
// best: GB18030 and Big5 each read most byte strings as some Chinese
// text, so the score counts the characters game records are made of
// (piece names, numerals, directions, common words of event and player
// tags) and charges for replacement and rarely used characters.
func Decode(data []byte, enc Encoding) (string, Encoding) {
	if enc == AutoEncoding {
		var text string
		if enc, text = detect(data); text != "" {
			return text, enc // the whole file was the sample
		}
	}
	switch enc {
	case UTF8:
		data = bytes.TrimPrefix(data, utf8BOM)
		if utf8.Valid(data) {
			return string(data), UTF8
		}
		return strings.ToValidUTF8(string(data), "\uFFFD"), UTF8
	case UTF16LE:
		data = bytes.TrimPrefix(data, []byte{0xFF, 0xFE})
	case UTF16BE:
		data = bytes.TrimPrefix(data, []byte{0xFE, 0xFF})
	case GB18030, Big5:
	default:
		return strings.ToValidUTF8(string(data), "\uFFFD"), UTF8
	}
	out, err := enc.decoder().Bytes(data)
	if err != nil {
		// x/text's decoders replace what they cannot read; an error here
		// is not expected, and lossy UTF-8 still lets the parser go on.
		return strings.ToValidUTF8(string(data), "\uFFFD"), UTF8
	}
	return string(out), enc
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// detectSample bounds how much of a file DetectEncoding decodes to score.
const detectSample = 64 << 10

// DetectEncoding guesses a file's encoding as Decode's AutoEncoding does.
func DetectEncoding(data []byte) Encoding {
	enc, _ := detect(data)
	return enc
}

// detect is DetectEncoding, and the file's text as well when it decoded
// all of it to choose (a small file in GB18030 or Big5).
func detect(data []byte) (Encoding, string) {
	switch {
	case bytes.HasPrefix(data, utf8BOM):
		return UTF8, ""
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return UTF16LE, ""
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return UTF16BE, ""
	case utf8.Valid(data):
		return UTF8, ""
	}
	sample := data[:min(len(data), detectSample)]
	best, bestScore, bestText := UTF8, textScore(strings.ToValidUTF8(string(sample), "\uFFFD")), ""
	for _, enc := range []Encoding{GB18030, Big5} {
		out, err := enc.decoder().Bytes(sample)
		if err != nil {
			continue
		}
		if s := textScore(string(out)); s > bestScore {
			best, bestScore, bestText = enc, s, string(out)
		}
	}
	if len(sample) < len(data) {
		bestText = ""
	}
	return best, bestText
}

// textScore rates how much s looks like a game record: characters records
// use count for it, replacement and rare characters against it.
func textScore(s string) int {
	score := 0
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
		case r == utf8.RuneError:
			score -= 8
		case r < 0x10000 && recordCharSet()[r>>6]&(1<<(r&63)) != 0:
			score += 4
		case r >= 0x4E00 && r <= 0x9FFF: // CJK ideographs: plausible either way
		case r >= 0x3000 && r <= 0x303F, r >= 0xFF01 && r <= 0xFF5E: // CJK punctuation, full width
			score++
		default: // private use, extension A, compatibility forms, symbols, kana, hangul…
			score -= 2
		}
	}
	return score
}

// recordCharSet is recordChars as a bitmap of the basic plane.
var recordCharSet = sync.OnceValue(func() *[0x10000 / 64]uint64 {
	var set [0x10000 / 64]uint64
	for _, r := range recordChars {
		set[r>>6] |= 1 << (r & 63)
	}
	return &set
})

// recordChars are characters frequent in xiangqi records, in both scripts:
// pieces, numerals, directions, and words of event and player tags.
const recordChars = "帥帅將将仕士相象傌馬马俥車车炮砲包兵卒進进退平前後后中" +
	"一二三四五六七八九十１２３４５６７８９０" +
	"紅红黑勝胜負负和先局賽赛杯屆届年月日第輪轮棋冠軍军隊队國国全錦锦標标大師师特級级" +
	"女子男個个人團团體体市省會会公開开決决預预選选區区州京上海廣广東东北南西天江" +
	"的是不了在有對对與与為为"
