// Card ids, in compact order.

export const NUMBERS = [1, 2, 3, 4, 5];
export const SHAPES = ['circle', 'crescent', 'triangle', 'square', 'star'];
export const COLOURS = ['violet', 'cyan', 'yellow', 'orange', 'red'];
export const ALL_CARDS = NUMBERS.flatMap((n) => SHAPES.flatMap((s) => COLOURS.map((c) => `${n}-${s}-${c}`)));
