package universal

import "fmt"

// The imageAutoGUIData of each game: the themes GamesCraftersUWAPI's
// games/image_autogui_data.py gives, whose pictures (paths under
// GamesmanUni's src/models/images/svg/) GamesmanUni bundles. Tic-tac-toe
// has none: GamesmanUni draws it with a GUI of its own.

type (
	charImage struct {
		Image string  `json:"image"`
		Scale float64 `json:"scale"`
	}
	theme struct {
		AnimationType string               `json:"animationType,omitempty"`
		ArrowWidth    float64              `json:"arrowWidth,omitempty"`
		Background    string               `json:"background,omitempty"`
		Centers       [][2]float64         `json:"centers"`
		CharImages    map[string]charImage `json:"charImages"`
		Foreground    string               `json:"foreground,omitempty"`
		Sounds        map[string]string    `json:"sounds,omitempty"`
		Space         [2]float64           `json:"space"`
	}
	imageData struct {
		DefaultTheme string           `json:"defaultTheme"`
		Themes       map[string]theme `json:"themes"`
	}
)

// connect4Images lays out a board of w columns and h rows: the cells
// column by column, each from the top, below a row of arrow ends. The
// UWAPI has pictures of the frame only for 6 rows of 6 or 7 columns;
// other boards show their pieces without a frame.
func connect4Images(w, h int) imageData {
	var centers [][2]float64
	for i := range w * h {
		centers = append(centers, [2]float64{0.5 + float64(i/h), 1.5 + float64(i%h)})
	}
	for i := range 2 * w {
		centers = append(centers, [2]float64{float64(i%w) + 0.5, float64(i / w)})
	}
	t := theme{
		Space:   [2]float64{float64(w), float64(h + 1)},
		Centers: centers,
		CharImages: map[string]charImage{
			"X": {"general/blue_circle.svg", 1},
			"O": {"general/red_circle.svg", 1},
		},
		ArrowWidth:    0.13,
		Sounds:        map[string]string{"x": "general/remove.mp3"},
		AnimationType: "entityFade",
	}
	if h == 6 && (w == 6 || w == 7) {
		t.Foreground = fmt.Sprintf("connect4/foreground6x%d.svg", w)
	}
	return imageData{DefaultTheme: "normal", Themes: map[string]theme{"normal": t}}
}

// quixoImages lays out an n x n board, 4 units a cell: the cells, then the
// arrow ends to their right, left, below and above.
func quixoImages(n int) imageData {
	var cells [][2]float64
	for j := 2; j <= 4*n; j += 4 {
		for i := 2; i <= 4*n; i += 4 {
			cells = append(cells, [2]float64{float64(i), float64(j)})
		}
	}
	centers := append([][2]float64{}, cells...)
	for _, d := range [][2]float64{{2, 0}, {-2, 0}, {0, 2}, {0, -2}} {
		for _, c := range cells {
			centers = append(centers, [2]float64{c[0] + d[0], c[1] + d[1]})
		}
	}
	return imageData{DefaultTheme: "regular", Themes: map[string]theme{"regular": {
		Space:   [2]float64{float64(4 * n), float64(4 * n)},
		Centers: centers,
		CharImages: map[string]charImage{
			"X": {"quixo/x.svg", 4},
			"O": {"quixo/o.svg", 4},
			"B": {"quixo/blank.svg", 4},
		},
		ArrowWidth:    0.1,
		Sounds:        map[string]string{"x": "general/slide.mp3"},
		AnimationType: "entityFade",
	}}}
}

// teekoImages lays out the 5x5 board, 100 units a point.
func teekoImages() imageData {
	var centers [][2]float64
	for j := 1; j <= 5; j++ {
		for i := 1; i <= 5; i++ {
			centers = append(centers, [2]float64{float64(100 * i), float64(100 * j)})
		}
	}
	return imageData{DefaultTheme: "regular", Themes: map[string]theme{"regular": {
		Space:      [2]float64{600, 600},
		Centers:    centers,
		Background: "teeko/board.svg",
		CharImages: map[string]charImage{
			"X": {"teeko/x.svg", 80},
			"O": {"teeko/o.svg", 80},
		},
		ArrowWidth:    7,
		Sounds:        map[string]string{"x": "general/slide.mp3", "y": "general/place.mp3"},
		AnimationType: "simpleSlides",
	}}}
}

// dshogiImages lays out the board, the hands and the drop tokens: the 12
// squares, the forest's hand (3), the sky's (3), then for each type
// (giraffe, elephant, chick) a drop token on each square.
func dshogiImages() imageData {
	var centers [][2]float64
	grid := func(dx, dy int) {
		for y := range 4 {
			for x := range 3 {
				centers = append(centers, [2]float64{float64(dx + 100*x), float64(dy + 100*y)})
			}
		}
	}
	grid(100, 100)
	centers = append(centers, [2]float64{425, 450}, [2]float64{550, 450}, [2]float64{485, 325})
	centers = append(centers, [2]float64{550, 51}, [2]float64{425, 51}, [2]float64{485, 175})
	grid(100, 75)
	grid(75, 125)
	grid(125, 125)
	img := map[string]charImage{}
	for c, name := range map[string]string{
		"a": "sky_elephant_2", "A": "forest_elephant_2", "b": "sky_giraffe_2", "B": "forest_giraffe_2",
		"c": "sky_chick", "C": "forest_chick", "d": "sky_chick_2", "D": "forest_chick_2",
		"e": "sky_elephant", "E": "forest_elephant", "g": "sky_giraffe", "G": "forest_giraffe",
		"h": "sky_hen", "H": "forest_hen", "l": "sky_lion", "L": "forest_lion",
	} {
		img[c] = charImage{"dshogi/" + name + ".svg", 100}
	}
	img["0"] = charImage{"dshogi/giraffe_move_token.svg", 50}
	img["1"] = charImage{"dshogi/elephant_move_token.svg", 50}
	img["2"] = charImage{"dshogi/chick_move_token.svg", 50}
	return imageData{DefaultTheme: "regular", Themes: map[string]theme{"regular": {
		Space:         [2]float64{601, 501},
		Centers:       centers,
		Background:    "dshogi/background.svg",
		CharImages:    img,
		ArrowWidth:    2,
		Sounds:        map[string]string{"x": "general/slide.mp3", "y": "general/place.mp3"},
		AnimationType: "simpleSlides",
	}}}
}

// chineseChessImages lays out the 9x10 board in two themes of pieces.
func chineseChessImages() imageData {
	var centers [][2]float64
	for i := range 90 {
		centers = append(centers, [2]float64{float64(i%9) + 0.5, float64(i/9) + 0.5})
	}
	names := map[string]string{
		"K": "general_r", "A": "advisor_r", "R": "chariot_r", "B": "elephant_r", "N": "horse_r",
		"P": "soldier_r", "Q": "soldier_r", "C": "cannon_r",
		"k": "general_b", "a": "advisor_b", "r": "chariot_b", "b": "elephant_b", "n": "horse_b",
		"p": "soldier_b", "q": "soldier_b", "c": "cannon_b",
	}
	themes := map[string]theme{}
	for _, t := range []string{"regular", "graphical"} {
		img := map[string]charImage{}
		for c, n := range names {
			img[c] = charImage{"chinesechess/" + t + "/" + n + ".svg", 1}
		}
		themes[t] = theme{
			Space:         [2]float64{9, 10},
			Centers:       centers,
			Background:    "chinesechess/board.svg",
			CharImages:    img,
			ArrowWidth:    0.1,
			Sounds:        map[string]string{"x": "general/slide.mp3", "y": "general/slideThenRemove.mp3"},
			AnimationType: "simpleSlides",
		}
	}
	return imageData{DefaultTheme: "regular", Themes: themes}
}
