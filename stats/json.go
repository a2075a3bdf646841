package stats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// jsonFloat is a float64 that JSON can hold whatever its value: a perfect
// score's Elo is +Inf, which encoding/json refuses, and a run's metrics
// must not fail to save on it. Non-finite values are written as the
// strings "+Inf", "-Inf" and "NaN"; finite ones as plain numbers.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	switch {
	case math.IsInf(x, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(x, -1):
		return []byte(`"-Inf"`), nil
	case math.IsNaN(x):
		return []byte(`"NaN"`), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}

func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(b, []byte(`"`)) {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case "+Inf":
			*f = jsonFloat(math.Inf(1))
		case "-Inf":
			*f = jsonFloat(math.Inf(-1))
		case "NaN":
			*f = jsonFloat(math.NaN())
		default:
			return fmt.Errorf("stats: %q is not a number, +Inf, -Inf or NaN", s)
		}
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	*f = jsonFloat(x)
	return nil
}

// eloJSON is EloEstimate's JSON form: the same field names as the plain
// struct's, so that files written before infinities were handled read.
type eloJSON struct {
	Elo jsonFloat
	CI  struct{ Lo, Hi jsonFloat }
	LOS jsonFloat
}

// MarshalJSON writes the estimate, infinite bounds included (see jsonFloat).
func (e EloEstimate) MarshalJSON() ([]byte, error) {
	var j eloJSON
	j.Elo, j.CI.Lo, j.CI.Hi, j.LOS = jsonFloat(e.Elo), jsonFloat(e.CI.Lo), jsonFloat(e.CI.Hi), jsonFloat(e.LOS)
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *EloEstimate) UnmarshalJSON(b []byte) error {
	var j eloJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("stats: Elo estimate: %w", err)
	}
	*e = EloEstimate{Elo: float64(j.Elo), CI: Interval{Lo: float64(j.CI.Lo), Hi: float64(j.CI.Hi)}, LOS: float64(j.LOS)}
	return nil
}
