package levelfile

import "testing"

func TestNames(t *testing.T) {
	tests := []struct {
		s string
		n Name
	}{
		{"mconnect4_width5-height4_12.dat.gz", Name{Game: "connect4", Option: "width5-height4", Tier: 12}},
		{"mtictactoe_default_3_2.dat.gz", Name{Game: "tictactoe", Option: "default", Tier: 3, Kind: Intermediate, Type: 2}},
		{"mquixo_size4_1285_4096_3.dat.gz", Name{Game: "quixo", Option: "size4", Tier: 1285, Kind: Partial, Start: 4096, Type: 3}},
	}
	for _, tt := range tests {
		got, err := ParseName(tt.s)
		if err != nil || got != tt.n {
			t.Errorf("ParseName(%q) = %+v, %v; want %+v", tt.s, got, err, tt.n)
		}
		if s := tt.n.String(); s != tt.s {
			t.Errorf("String() = %q, want %q", s, tt.s)
		}
	}
	if FullName("g", "o", 7) != "mg_o_7.dat.gz" || PartialName("g", "o", 7, 100, Type1) != "mg_o_7_100_1.dat.gz" {
		t.Error("FullName/PartialName")
	}
	for _, bad := range []string{"", "x.dat.gz", "mg_o.dat.gz", "mg_o_7", "mg_o_07.dat.gz", "mg_o_7_4.dat.gz",
		"mg_o_7_1_2_3.dat.gz", "m_o_7.dat.gz", "mg_o_-1.dat.gz", "mg_o_7_1_9.dat.gz"} {
		if _, err := ParseName(bad); err == nil {
			t.Errorf("ParseName(%q) accepted", bad)
		}
	}
	// Names are portable: an option with '=' and ',' is written without
	// them, and names written before with them are still read.
	if n := FullName("connect4", "width=5,height=4", 12); n != "mconnect4_width5-height4_12.dat.gz" {
		t.Errorf("FullName = %q", n)
	}
	if n := PartialName("connect4", "width=5,height=4", 12, 4096, Type3); n != "mconnect4_width5-height4_12_4096_3.dat.gz" {
		t.Errorf("PartialName = %q", n)
	}
	if n, err := ParseName("mconnect4_width=5,height=4_12_4096_3.dat.gz"); err != nil || n.Option != "width=5,height=4" || n.Start != 4096 {
		t.Errorf("ParseName of an old name: %+v, %v", n, err)
	}
	if IntermediateName("dir/mg_o_7.dat.gz", Type2) != "dir/mg_o_7_2.dat.gz" {
		t.Error("IntermediateName")
	}
}
