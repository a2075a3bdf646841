package xqf

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/palace-chess/palace/gamerec"
)

var updateTestdata = flag.Bool("update-testdata", false, "rewrite testdata/*.xqf from the test encoder")

// TestTestdataFiles keeps the files in testdata (which palace import's
// tests read) equal to what the test encoder writes, and checks they
// import: an encrypted version 18 file with a variation and comments, and
// a plain version 10 endgame with Black to move.
func TestTestdataFiles(t *testing.T) {
	encrypted := versions[3]
	encrypted.root = line(strings.Fields(game1)...)
	encrypted.root.comment = "中炮对屏风马"
	encrypted.root.at(3).comment = "红方出车"
	encrypted.root.alt(4, "b9c7", "i0h0")
	encrypted.result = 1
	encrypted.text = map[string]string{"Red": "赵国荣", "Black": "柯永庆", "Event": "中国象棋甲级联赛", "Date": "1997-05-03"}
	plain := versions[0]
	plain.fen = endgameFEN
	plain.whoPlays = 1
	plain.root = line(strings.Fields("e9e8 f0f1 e8e7 f1f2")...)
	for name, s := range map[string]spec{"encrypted_v18.xqf": encrypted, "endgame_v10.xqf": plain} {
		data := encode(t, s)
		path := filepath.Join("testdata", name)
		if *updateTestdata {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		stored, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(stored, data) {
			t.Fatalf("%s differs from the encoder's output (go test ./xqf -run TestTestdataFiles -update-testdata)", path)
		}
		games, errs, _ := Import(stored, path, gamerec.ImportOptions{})
		if len(errs) != 0 || len(games) != 1 {
			t.Fatalf("%s: %d games, %v", path, len(games), errs)
		}
		if _, err := games[0].Replay(xiangqi); err != nil {
			t.Fatal(err)
		}
	}
}
