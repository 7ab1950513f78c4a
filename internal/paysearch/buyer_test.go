package paysearch

import (
	"testing"

	"github.com/bnpl-cli/bnpl/internal/api"
)

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"MOHAMMED":      "mohammed",
		"Zoë Ćirić":     "zoe ciric",
		"ﬁnance":        "finance",
		"مُحَمَّد":      "محمد",
		"أحمد":          "احمد",
		"إبراهيم":       "ابراهيم",
		"آمنة":          "امنه",
		"ٱلله":          "الله",
		"مصطفى":         "مصطفي",
		"فاطمة":         "فاطمه",
		"فَاطِمَة":      "فاطمه",
		"محـــمد":       "محمد",
		"کریم":          "كريم",
		"٠٥٠١٢٣":        "050123",
		"Ａｌｉ":           "ali",
		"\u0624\u0645ن": "\u0648\u0645ن",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBuyerMatches(t *testing.T) {
	buyers := map[string]*api.Buyer{
		"fatima":   {Name: "فاطمة الزهراء", Email: "f.zahra@example.ae", Phone: "+971 50 123 4567"},
		"ahmed":    {Name: "أحمد بن علي", Email: "ahmed@example.com", Phone: "0551234567"},
		"zoe":      {Name: "Zoë Martín", Email: "ZOE.M@Example.com", Phone: "+96599887766"},
		"mustafa":  {Name: "مُصْطَفَى", Email: "m@example.sa", Phone: "+966 55 000 1111"},
		"nobuyer":  nil,
		"ahmedlat": {Name: "Ahmed Al Ali", Email: "aa@example.ae", Phone: "+971500000002"},
	}
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"فاطمه", []string{"fatima"}},
		{"فَاطِمَة", []string{"fatima"}},
		{"الزهراء فاطمة", []string{"fatima"}},
		{"احمد", []string{"ahmed"}},
		{"إحمد علي", []string{"ahmed"}},
		{"مصطفي", []string{"mustafa"}},
		{"zoe", []string{"zoe"}},
		{"MARTIN", []string{"zoe"}},
		{"zoe.m@example", []string{"zoe"}},
		{"@example.ae", []string{"fatima", "ahmedlat"}},
		{"ahmed", []string{"ahmed", "ahmedlat"}},
		{"ahmed ali", []string{"ahmedlat"}},
		{"050 123 4567", []string{"fatima"}},
		{"+971501234567", []string{"fatima"}},
		{"٠٥٥١٢٣٤٥٦٧", []string{"ahmed"}},
		{"4567", []string{"fatima", "ahmed"}},
		{"99887766", []string{"zoe"}},
		{"nobody", nil},
	} {
		b, ok := NewBuyer(c.q)
		if !ok {
			t.Fatalf("NewBuyer(%q) refused", c.q)
		}
		var got []string
		for _, name := range []string{"fatima", "ahmed", "zoe", "mustafa", "nobuyer", "ahmedlat"} {
			if b.Matches(buyers[name]) {
				got = append(got, name)
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("%q matched %v, want %v", c.q, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q matched %v, want %v", c.q, got, c.want)
				break
			}
		}
	}
	if _, ok := NewBuyer("  "); ok {
		t.Error("a blank query was accepted")
	}
}
