// The pieces' signs and the page's icons, drawn as SVG strokes: no installed font is needed,
// so they look the same on every machine. Each glyph is a list of stroke paths in a 100×100
// box, drawn with round ends in the current colour.

const SVG = "http://www.w3.org/2000/svg";

const PERSON = ["M32 10 L12 44", "M23 30 L23 92"]; // 亻, the left of 仕 俥 傌
const CART = [ // 車, squeezed into x 40..92 for 俥
  "M42 18 L90 18", "M46 32 L86 32 L86 64 L46 64 Z", "M46 48 L86 48", "M66 6 L66 94",
  "M40 79 L92 79",
];
const HORSE = (x0, x1) => { // 馬 between x0 and x1
  const w = x1 - x0;
  const at = (f) => Math.round(x0 + f * w);
  return [
    `M${at(0.12)} 10 L${at(0.12)} 60`, `M${at(0.12)} 12 L${at(0.8)} 12`,
    `M${at(0.12)} 28 L${at(0.74)} 28`, `M${at(0.12)} 44 L${at(0.74)} 44`,
    `M${at(0.44)} 12 L${at(0.44)} 60`,
    `M${at(0.12)} 60 L${at(0.96)} 60 Q${at(0.98)} 84 ${at(0.84)} 92 L${at(0.74)} 86`,
    `M${at(0.16)} 72 L${at(0.1)} 84`, `M${at(0.34)} 72 L${at(0.3)} 83`,
    `M${at(0.52)} 72 L${at(0.52)} 82`, `M${at(0.7)} 72 L${at(0.74)} 82`,
  ];
};
const WRAP = [ // 包, the right of 炮 砲
  "M58 8 L46 28", "M52 20 L90 20 Q90 60 80 66 L72 60",
  "M56 36 L76 36 L76 52 L56 52 L56 80 Q56 90 70 90 L92 90 L92 78",
];

export const GLYPHS = {
  K: [ // 帥
    "M30 8 L22 20", "M22 18 L22 82", "M22 24 L42 24 L42 46 L22 46",
    "M22 54 L44 54 L44 82 L22 82", "M72 8 L72 94", "M56 32 L56 76",
    "M56 32 L90 32 L90 70 Q90 78 82 76",
  ],
  G: [...PERSON, "M40 42 L92 42", "M66 14 L66 86", "M48 86 L84 86"], // 仕
  M: [ // 相
    "M8 34 L42 34", "M25 10 L25 92", "M25 38 Q18 58 8 72", "M28 46 L40 58",
    "M52 14 L88 14 L88 88 L52 88 Z", "M52 39 L88 39", "M52 63 L88 63",
  ],
  R: [...PERSON, ...CART], // 俥
  N: [...PERSON, ...HORSE(34, 94)], // 傌
  C: [ // 炮
    "M12 30 L17 44", "M38 28 L31 42", "M24 12 Q26 60 8 88", "M25 58 L40 84", ...WRAP,
  ],
  P: [ // 兵
    "M66 8 L34 16", "M34 16 L34 58", "M34 34 L76 34", "M58 34 L58 58", "M12 58 L88 58",
    "M38 70 L20 90", "M62 70 L82 90",
  ],
  k: [ // 將
    "M30 8 L30 94", "M12 26 L22 38", "M10 66 L30 52", "M50 8 L42 22",
    "M46 18 L84 18 Q76 34 62 42", "M54 28 L64 36", "M40 56 L92 56",
    "M76 42 L76 88 Q76 94 66 90", "M54 66 L62 76",
  ],
  g: ["M16 38 L84 38", "M50 12 L50 84", "M30 84 L70 84"], // 士
  m: [ // 象
    "M42 6 L30 20", "M38 12 L64 12 L56 22", "M30 24 L72 24 L72 42 L30 42 Z",
    "M30 33 L72 33", "M26 50 L78 50", "M52 50 Q40 66 16 76", "M46 62 Q36 76 22 86",
    "M56 54 Q64 74 54 92 L44 86", "M58 62 Q72 78 90 86", "M64 54 L82 46",
  ],
  r: [ // 車
    "M16 16 L84 16", "M24 30 L76 30 L76 64 L24 64 Z", "M24 47 L76 47", "M50 6 L50 94",
    "M10 79 L90 79",
  ],
  n: HORSE(8, 92), // 馬
  c: [ // 砲
    "M8 18 L42 18", "M26 18 Q20 46 8 62", "M16 46 L38 46 L38 84 L16 84 Z", ...WRAP,
  ],
  p: [ // 卒
    "M50 6 L52 14", "M16 18 L84 18", "M36 24 L20 44", "M31 35 L42 43", "M64 24 L50 44",
    "M59 35 L72 43", "M10 60 L90 60", "M50 48 L50 94",
  ],
};

export const LETTERS = {
  K: ["M28 14 L28 86", "M72 14 L30 56", "M44 44 L76 86"],
  G: ["M76 28 Q70 14 50 14 Q24 14 24 50 Q24 86 50 86 Q74 86 76 64 L76 52 L54 52"],
  M: ["M20 86 L20 14 L50 62 L80 14 L80 86"],
  R: ["M28 86 L28 14 L56 14 Q76 14 76 33 Q76 52 56 52 L28 52", "M52 52 L76 86"],
  N: ["M26 86 L26 14 L74 86 L74 14"],
  C: ["M76 28 Q70 14 50 14 Q24 14 24 50 Q24 86 50 86 Q70 86 76 72"],
  P: ["M28 86 L28 14 L56 14 Q76 14 76 34 Q76 54 56 54 L28 54"],
  "?": ["M30 30 Q30 12 50 12 Q72 12 72 32 Q72 46 50 52 L50 64", "M50 82 L50 84"],
};

export const ICONS = {
  first: ["M24 20 L24 80", "M78 20 L40 50 L78 80 Z"],
  back: ["M70 20 L32 50 L70 80 Z"],
  play: ["M32 20 L74 50 L32 80 Z"],
  pause: ["M34 20 L34 80", "M66 20 L66 80"],
  forward: ["M30 20 L68 50 L30 80 Z"],
  last: ["M76 20 L76 80", "M22 20 L60 50 L22 80 Z"],
  settings: ["M14 26 L86 26", "M14 50 L86 50", "M14 74 L86 74"],
  close: ["M24 24 L76 76", "M76 24 L24 76"],
};

// An <svg> of the strokes, hidden from screen readers (the element around it says what it is).
export function strokes(paths, className) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.classList.add("glyph", ...className.split(" ").filter(Boolean));
  for (const d of paths) {
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", d);
    svg.append(path);
  }
  return svg;
}

// A button's face: the icon ``name`` and, if any, ``words`` after it.
export function setIconButton(button, name, words = "") {
  const label = document.createElement("span");
  label.className = "words";
  label.textContent = words;
  button.replaceChildren(strokes(ICONS[name], "icon"), ...(words ? [label] : []));
}

// Every button with a data-icon attribute gets its icon before its words.
export function drawIcons(root) {
  for (const button of root.querySelectorAll("button[data-icon]")) {
    setIconButton(button, button.dataset.icon, button.textContent.trim());
  }
}
