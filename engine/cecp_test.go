package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

)

// cecpVolatile is the time field of CECP's thinking output ("ply score
// time nodes pv").
var cecpVolatile = regexp.MustCompile(`(?m)^(< -?\d+ -?\d+ )\d+( \d+)`)

func cecpMask(s string) string { return cecpVolatile.ReplaceAllString(s, "${1}X${2}") }

// Golden CECP transcripts: testdata/cecp/*.txt, as testdata/*.txt are for
// UCI (the commands read from the file, -update rewrites the answers), with
// the thinking output's time masked.
func TestCECPGoldenSessions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "cecp", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in testdata/cecp: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var commands []string
			var comments [][]string
			var pending []string
			for _, line := range strings.Split(string(data), "\n") {
				switch {
				case strings.HasPrefix(line, "> "):
					commands = append(commands, line[2:])
					comments = append(comments, pending)
					pending = nil
				case strings.HasPrefix(line, "#"):
					pending = append(pending, line)
				}
			}
			got := cecpMask(session(t, testOptions, commands, comments))
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != string(data) {
				t.Errorf("transcript differs (go test ./engine -run CECPGolden -update to accept):\n%s", diff(string(data), got))
			}
		})
	}
}
