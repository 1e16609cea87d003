// Runs the ecosystem's own card libraries on files bunzai wrote.
//
// Usage: node checker.cjs PREFIX   (PREFIX holds the node_modules installed from package-lock.json)
// Protocol: one JSON request per line on stdin, {"items": [...]}, answered by one JSON line on
// stdout, {"results": [...]} in the same order.  An item is one of
//   {"op": "card_json", "card": OBJ}      ccardlib and character-card-utils on a card object
//   {"op": "card_file", "path": P, "icon": Q}  Character Foundry's parseCard on the file's bytes
//                                         (the main image it extracts is written to Q)
//   {"op": "book_json", "book": OBJ, "spec": "v2"|"v3"}  ccardlib's lorebook conversion
//   {"op": "book_file", "path": P}        Character Foundry's parseLorebook on the file's bytes
//   {"op": "voxta_file", "path": P, "icon": Q}  Character Foundry's readVoxta on a .voxpkg, each
//                                         character as its voxtaToCCv3 card (the first
//                                         character's thumbnail is written to Q) and every book
// Every result says what the library made of the input: accepted or the error, and the fields a
// user sees as the library parsed them.
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { createRequire } = require('module');

const prefix = process.argv[2];
const req = createRequire(path.join(path.resolve(prefix), 'package.json'));
const { CCardLib } = req('@risuai/ccardlib');
const CCU = req('character-card-utils');
const { parseCard, parseLorebook } = req('@character-foundry/character-foundry/loader');
const schemas = req('@character-foundry/character-foundry/schemas');
const { readVoxta, voxtaToCCv3, voxtaToStandard } = req('@character-foundry/character-foundry/voxta');

const CARD_FIELDS = ['name', 'description', 'personality', 'scenario', 'first_mes',
  'mes_example', 'creator_notes', 'system_prompt', 'post_history_instructions',
  'alternate_greetings', 'tags', 'creator', 'character_version'];

function plainContent(text) {
  // The entry's text without its leading @@decorator lines, by ccardlib's own parser.
  if (typeof text !== 'string') return text;
  return CCardLib.decorator.parse(text, () => {});
}

function entries(list) {
  if (!Array.isArray(list)) return null;
  return list.map((e) => {
    if (!e || typeof e !== 'object') return { bad: true };
    return {
      id: e.id === undefined ? null : e.id,
      keys: e.keys === undefined ? null : e.keys,
      secondary_keys: e.secondary_keys === undefined ? null : e.secondary_keys,
      content: e.content === undefined ? null : e.content,
      content_plain: plainContent(e.content),
      enabled: e.enabled === undefined ? null : e.enabled,
      constant: e.constant === undefined ? null : e.constant,
      extensions: e.extensions && typeof e.extensions === 'object' ? e.extensions : null,
    };
  });
}

function fields(data) {
  const out = {};
  if (!data || typeof data !== 'object') return out;
  for (const key of CARD_FIELDS) out[key] = data[key] === undefined ? null : data[key];
  const book = data.character_book;
  out.book = book && typeof book === 'object' ? entries(book.entries) : null;
  out.assets = Array.isArray(data.assets) ? data.assets : null;
  return out;
}

function zodIssues(result) {
  if (result.success) return null;
  return result.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`);
}

function message(err) {
  return err && err.message ? String(err.message) : String(err);
}

function cardJson(card) {
  const out = {};
  // ccardlib: which spec its compiled JSON Schemas accept (check() deletes nulls: give it a copy)
  try {
    out.ccardlib_check = CCardLib.character.check(structuredClone(card));
  } catch (err) {
    out.ccardlib_check = 'error: ' + message(err);
  }
  if (out.ccardlib_check === 'v1' || out.ccardlib_check === 'v2' || out.ccardlib_check === 'v3') {
    try {
      const v3 = CCardLib.character.convert(structuredClone(card), { to: 'v3' });
      out.ccardlib = fields(v3.data);
    } catch (err) {
      out.ccardlib_error = message(err);
    }
  }
  // character-card-utils: the V2 spec's zod parser; safeParseToV2 falls back to the V1 parser
  // (and converts), so what it parsed the card as is reported too
  const asV2 = CCU.v2.safeParse(structuredClone(card));
  if (asV2.success) {
    out.ccu = fields(asV2.data.data);
    out.ccu_as = 'v2';
  } else {
    out.ccu_v2_error = zodIssues(asV2);
    const parsed = CCU.safeParseToV2(structuredClone(card));
    if (parsed.success) {
      out.ccu = fields(parsed.data.data);
      out.ccu_as = 'v1';
    } else {
      out.ccu_error = zodIssues(parsed);
    }
  }
  // Character Foundry's strict schema for the spec the card declares
  if (card && card.spec === 'chara_card_v3') {
    out.cf_schema = zodIssues(schemas.CCv3DataSchema.safeParse(structuredClone(card)));
  } else if (card && card.spec === 'chara_card_v2') {
    out.cf_schema = zodIssues(schemas.CCv2WrappedSchema.safeParse(structuredClone(card)));
  }
  return out;
}

function cardFile(item) {
  const data = new Uint8Array(fs.readFileSync(item.path));
  let result;
  try {
    result = parseCard(data);
  } catch (err) {
    return { cf_error: message(err) };
  }
  const out = {
    cf: fields(result.card.data),
    cf_container: result.containerFormat,
    cf_spec: result.spec,
    cf_warnings: result.warnings || null,
  };
  out.cf_schema = zodIssues(schemas.CCv3DataSchema.safeParse(structuredClone(result.card)));
  const shape = result.originalShape;
  if (shape && shape.spec === 'chara_card_v2') {
    out.cf_source_schema = zodIssues(schemas.CCv2WrappedSchema.safeParse(structuredClone(shape)));
  } else if (shape && shape.spec === 'chara_card_v3') {
    out.cf_source_schema = zodIssues(schemas.CCv3DataSchema.safeParse(structuredClone(shape)));
  }
  const main = result.assets.find((a) => a.isMain) || null;
  if (main && item.icon) {
    fs.writeFileSync(item.icon, main.data);
    out.cf_icon = true;
  } else {
    out.cf_icon = false;
  }
  out.cf_assets = result.assets.map((a) => ({ name: a.name, type: a.type, ext: a.ext,
    size: a.data.length, main: !!a.isMain }));
  return out;
}

function bookJson(item) {
  const from = item.spec;
  const to = from === 'v2' ? 'v3' : 'v2';
  let converted;
  try {
    converted = CCardLib.lorebook.convert(structuredClone(item.book), { from, to });
  } catch (err) {
    return { ccardlib_book_error: message(err) };
  }
  // the converted book must pass ccardlib's schema of its spec, inside a minimal card
  const base = { name: '', description: '', personality: '', scenario: '', first_mes: '',
    mes_example: '', creator_notes: '', system_prompt: '', post_history_instructions: '',
    alternate_greetings: [], tags: [], creator: '', character_version: '', extensions: {},
    character_book: converted };
  const card = to === 'v3'
    ? { spec: 'chara_card_v3', spec_version: '3.0', data: { ...base, group_only_greetings: [] } }
    : { spec: 'chara_card_v2', spec_version: '2.0', data: base };
  const check = CCardLib.character.check(card);
  const out = { ccardlib_book_check: check, ccardlib_book_to: to,
    ccardlib_book: entries(converted.entries) };
  const own = from === 'v3' ? schemas.CCv3CharacterBookSchema : schemas.CCv2CharacterBookSchema;
  out.cf_book_schema = zodIssues(own.safeParse(structuredClone(item.book)));
  return out;
}

function bookFile(item) {
  const data = new Uint8Array(fs.readFileSync(item.path));
  let result;
  try {
    result = parseLorebook(data);
  } catch (err) {
    return { cf_error: message(err) };
  }
  return {
    cf_format: result.lorebookFormat,
    cf_book: entries(result.book.entries),
    cf_schema: zodIssues(schemas.CCv3CharacterBookSchema.safeParse(structuredClone(result.book))),
  };
}

function voxtaFile(item) {
  const data = new Uint8Array(fs.readFileSync(item.path));
  let pkg;
  try {
    pkg = readVoxta(data);
  } catch (err) {
    return { cf_error: message(err) };
  }
  const characters = pkg.characters.map((c, i) => {
    // the character's linked books, as Character Foundry's own conversion picks them
    const linked = new Set(c.data.MemoryBooks || []);
    const books = pkg.books.filter((b) => linked.has(b.id)).map((b) => b.data);
    const card = voxtaToCCv3(c.data, books);
    if (i === 0 && item.icon && c.thumbnail && c.thumbnail.length) {
      fs.writeFileSync(item.icon, c.thumbnail);
    }
    return { cf: fields(card.data), thumbnail: c.thumbnail ? c.thumbnail.length : 0 };
  });
  // entries as Character Foundry's own conversion reads book items (Voxta macros made standard)
  const books = pkg.books.map((b) => ({
    name: b.data.Name,
    entries: entries((b.data.Items || []).map((it) => ({
      keys: it.Keywords || [], content: voxtaToStandard(it.Text || ''), enabled: it.Deleted !== true,
    }))),
  }));
  return { cf_export_type: pkg.exportType || null, cf_characters: characters, cf_books: books };
}

function run(item) {
  try {
    switch (item.op) {
      case 'card_json': return cardJson(item.card);
      case 'card_file': return cardFile(item);
      case 'book_json': return bookJson(item);
      case 'book_file': return bookFile(item);
      case 'voxta_file': return voxtaFile(item);
      default: return { error: 'unknown op ' + item.op };
    }
  } catch (err) {
    return { error: 'checker crashed: ' + (err && err.stack ? err.stack : String(err)) };
  }
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  const results = request.items.map(run);
  process.stdout.write(JSON.stringify({ results }) + '\n');
});
