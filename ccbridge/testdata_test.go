package ccbridge

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/palace-chess/palace/gamerec"
)

var updateTestdata = flag.Bool("update-testdata", false, "rewrite testdata/*.cbr and *.cbl from the test encoder")

// TestTestdataFiles keeps the files in testdata (which palace import's
// tests read) equal to what the test encoder writes, and checks they
// import: a record with a comment, and a library of two games.
func TestTestdataFiles(t *testing.T) {
	le := encodeRecord(t, cbrGame{
		tags:         map[string]string{"Red": "LE Thien Vi", "Black": "BI BingJian", "Event": "World Championships 1997", "Date": "1997-10-05"},
		result:       1,
		startComment: "中炮对屏风马",
		moves:        iccsLine(leGame),
	})
	liu := encodeRecord(t, cbrGame{
		tags:  map[string]string{"Red": "LIU DianZhong", "Black": "LIU DaHua", "Event": "Jiafun Cup 1997", "Date": "1997年"},
		moves: iccsLine(liuGame),
	})
	for name, want := range map[string]struct {
		data  []byte
		games int
	}{"le_1997.cbr": {le, 1}, "two_games.cbl": {encodeLibrary(t, "两局", 0, liu, le), 2}} {
		path := filepath.Join("testdata", name)
		if *updateTestdata {
			if err := os.WriteFile(path, want.data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		stored, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(stored, want.data) {
			t.Fatalf("%s differs from the encoder's output (go test ./ccbridge -run TestTestdataFiles -update-testdata)", path)
		}
		games, _ := importOK(t, stored, path, gamerec.ImportOptions{})
		if len(games) != want.games {
			t.Fatalf("%s: %d games, want %d", path, len(games), want.games)
		}
	}
}
