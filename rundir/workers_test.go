package rundir

import (
	"encoding/json"
	"testing"
	"time"
)

// A stage put twice (redone after a crash) counts once; totals add up
// each worker's stages.
func TestWorkersPutAndTotals(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	var w Workers
	w.Put(WorkersEntry{Generation: 0, Kind: "selfplay", Key: "selfplay/gen-0000", Time: t0,
		Workers: map[string]WorkerJobs{"a": {Jobs: 2, Games: 64, Positions: 6000}, "b": {Jobs: 1, Games: 32}}})
	w.Put(WorkersEntry{Generation: 0, Kind: "selfplay", Key: "selfplay/gen-0000", Time: t0.Add(time.Minute),
		Workers: map[string]WorkerJobs{"a": {Jobs: 3, Games: 96, Positions: 9000}}})
	var g Workers
	g.Put(WorkersEntry{Generation: 0, Kind: "arena", Key: "arena/gen-0001.jsonl", Time: t0.Add(2 * time.Minute),
		Workers: map[string]WorkerJobs{"b": {Jobs: 4, Games: 8}}})
	data, _ := json.Marshal(&w)
	back, err := ParseWorkers(data, "trainer.json")
	if err != nil {
		t.Fatal(err)
	}
	tot := Totals(back, &g)
	if len(tot) != 2 || tot[0].Name != "a" || tot[0].Jobs["selfplay"] != 3 || tot[0].Games != 96 ||
		tot[1].Name != "b" || tot[1].Jobs["arena"] != 4 || tot[1].Jobs["selfplay"] != 0 || !tot[1].Last.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("totals %+v", tot)
	}
	if _, err := ParseWorkers([]byte(`{"format": "x", "version": 1}`), "f"); err == nil {
		t.Error("another format was read")
	}
}
