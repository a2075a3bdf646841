package arena_test

import (
	"encoding/json"
	"testing"

	"github.com/palace-chess/palace/arena"
)

// A game's record line as palace wrote it before its game part was
// gamerec's (End and Line): it reads back and is written byte for byte.
func TestGameRecordJSON(t *testing.T) {
	line := `{"pair":3,"game":1,"opening":"xiangqi h3e3","score":0,"result":"1-0","reason":"forfeit","plies":7,` +
		`"start_fen":"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1","moves":"h3e3 h10g8",` +
		`"forfeit":"b: illegal move"}`
	var r arena.GameRecord
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	if r.Pair != 3 || r.Result != "1-0" || r.Reason != "forfeit" || r.Plies != 7 || r.Moves != "h3e3 h10g8" || r.Forfeit == "" {
		t.Errorf("read %+v", r)
	}
	out, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != line {
		t.Errorf("written as\n%s\nwant\n%s", out, line)
	}
}
