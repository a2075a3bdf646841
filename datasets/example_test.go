package datasets_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/palace-chess/palace/datasets"
	"github.com/palace-chess/palace/encode"
	"github.com/palace-chess/palace/rules"
)

// Self-play writes each game's positions to a shard and lists the shard
// in its directory's manifest; training samples the replay window and
// encodes what it draws.
func Example() {
	dir, _ := os.MkdirTemp("", "shards")
	defer os.RemoveAll(dir)
	rs := rules.MustPreset("xiangqi")

	// Self-play: one short game with a uniform policy target.
	hdr := datasets.NewHeader(rs)
	hdr.NetworkID, hdr.CodeVersion = "random", "example"
	w, err := datasets.NewWriter(filepath.Join(dir, "000001.shard"), hdr, datasets.WithManifest())
	if err != nil {
		fmt.Println(err)
		return
	}
	g, _ := rules.NewGame(rs, rs.StartFEN())
	var recs []datasets.Record
	for ply := 0; ply < 6; ply++ {
		legal := g.LegalMoves(nil)
		probs := make([]float32, len(legal))
		for i := range probs {
			probs[i] = 1 / float32(len(legal))
		}
		var r datasets.Record
		r.SetPosition(g, legal)
		r.SetPolicy(legal, probs)
		r.GameID, r.Move, r.WDL, r.Full = 1, legal[0], [3]float32{0, 1, 0}, true
		recs = append(recs, r)
		g.Play(legal[0])
	}
	for i := range recs {
		recs[i].Result = datasets.Draw // known once the game is over
		if err := w.Write(&recs[i]); err != nil {
			fmt.Println(err)
		}
	}
	if err := w.Close(); err != nil {
		fmt.Println(err)
	}

	// Training: sample the window, encode the planes and the target.
	s, err := datasets.NewSampler([]string{dir}, datasets.WithWindow(4, 0.65, 0.4), datasets.WithSeed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	batch := make([]datasets.Sample, 8)
	if err := s.Fill(batch); err != nil {
		fmt.Println(err)
		return
	}
	planes := make([]float32, encode.InputSize)
	policy := make([]float32, encode.PolicySize())
	for _, x := range batch {
		if err := datasets.EncodeRecord(&x.Record, rs, planes); err != nil {
			fmt.Println(err)
		}
		if err := x.PolicyTarget(policy); err != nil {
			fmt.Println(err)
		}
	}
	problems, _ := datasets.Verify(dir)
	fmt.Println("positions:", s.Total(), "window:", s.Window(), "problems:", len(problems))
	// Output: positions: 6 window: 4 problems: 0
}
