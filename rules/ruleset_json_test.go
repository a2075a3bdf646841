package rules

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestRuleSetJSONRoundTrip(t *testing.T) {
	odd, err := ParseRuleSet([]byte("base: janggiclassic\nname: odd\nbikjangClaim: true\ncounting: true\nmaxPlies: 99\n"), "test")
	if err != nil {
		t.Fatal(err)
	}
	sets := []*RuleSet{odd}
	for _, name := range PresetNames() {
		sets = append(sets, MustPreset(name))
	}
	for _, rs := range sets {
		data, err := json.Marshal(rs)
		if err != nil {
			t.Fatalf("%s: %v", rs, err)
		}
		var back RuleSet
		if err := json.Unmarshal(data, &back); err != nil {
			t.Errorf("%s: %v", rs, err)
			continue
		}
		if !reflect.DeepEqual(&back, rs) {
			t.Errorf("%s came back as %+v", rs, back)
		}
		// The form games files held before: Go's field names.
		type goFields RuleSet
		old, _ := json.Marshal(goFields(*rs))
		var fromOld RuleSet
		if err := json.Unmarshal(old, &fromOld); err != nil || !reflect.DeepEqual(&fromOld, rs) {
			t.Errorf("%s from %s: %+v, %v", rs, old, fromOld, err)
		}
	}
	data, _ := json.Marshal(MustPreset("janggi"))
	changed := strings.Replace(string(data), `"counting":true`, `"counting":false`, 1)
	var rs RuleSet
	if err := json.Unmarshal([]byte(changed), &rs); err == nil || !strings.Contains(err.Error(), "hash to") {
		t.Errorf("a switch changed under its hash: %v", err)
	}
	for _, bad := range []string{
		strings.Replace(string(data), `"pass":"unlessInCheck"`, `"pass":"sometimes"`, 1),
		strings.Replace(string(data), `"hanBonus":1.5`, `"hanBonus":1.25`, 1),
		strings.Replace(string(data), `"name":`, `"extra":1,"name":`, 1),
		`{"Name":"x","Game":0,"Repetition":1}`,
	} {
		if err := json.Unmarshal([]byte(bad), &rs); err == nil {
			t.Errorf("%s read", bad)
		}
	}
}

// The JSON form is experiment record files' (palace-experiment version 1):
// its bytes must not change.
func TestRuleSetJSONForm(t *testing.T) {
	data, err := json.Marshal(MustPreset("xiangqi"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"` + MustPreset("xiangqi").String() + `","game":"xiangqi","name":"xiangqi","pass":"never","facingKings":"illegal",` +
		`"bikjangClaim":false,"counting":false,"hanBonus":0,"repetition":3,"perpetualCheckLoses":true,"chaseRule":true,` +
		`"shuttleRule":false,"moveLimit":100,"checkExtension":true,"materialDraw":true,"maxPlies":0}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
}
