package nn_test

import (
	"fmt"
	"sync"

	"github.com/palace-chess/palace/nn"
)

// Four searches share one backend through a Batcher and one table through
// Cache.WithBackend: hits return at once, misses from all four go to the
// backend together.
func Example() {
	const inputSize, policySize = 4, 10
	backend := nn.NewUniform(inputSize, policySize)
	batcher := nn.NewBatcher(backend, 64)
	table := nn.NewCache(nil, 1024)

	var wg sync.WaitGroup
	results := make([]nn.Output, 4)
	for s := range 4 {
		client := batcher.NewClient()
		ev := table.WithBackend(client)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer client.Close()
			in := []nn.Input{{
				Planes: make([]float32, inputSize),
				Legal:  []int32{1, 5, 7, 9}[:s+1],
				Key:    uint64(100 + s),
			}}
			out := []nn.Output{{Policy: make([]float32, len(in[0].Legal))}}
			for range 3 { // the second and third ask are hits
				if err := ev.Evaluate(in, out); err != nil {
					fmt.Println(err)
					return
				}
			}
			results[s] = out[0]
		}()
	}
	wg.Wait()
	for s, r := range results {
		fmt.Println(s, r.Policy, r.WDL)
	}
	st := table.Stats()
	fmt.Printf("hits %d, misses %d, backend positions %d\n", st.Hits, st.Misses, batcher.Stats().Positions)
	// Output:
	// 0 [1] [0 1 0]
	// 1 [0.5 0.5] [0 1 0]
	// 2 [0.33333334 0.33333334 0.33333334] [0 1 0]
	// 3 [0.25 0.25 0.25 0.25] [0 1 0]
	// hits 8, misses 4, backend positions 4
}

func ExampleValidate() {
	in := []nn.Input{{Planes: make([]float32, 4), Legal: []int32{3, 12}}}
	out := []nn.Output{{Policy: make([]float32, 2)}}
	fmt.Println(nn.Validate(4, 10, in, out))
	// Output: nn: input 0: Legal[1] = 12, outside [0, 10)
}
