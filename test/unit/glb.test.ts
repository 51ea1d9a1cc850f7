/**
 * The GLB container module: what it writes (header, chunk types, padding), that reading gives back what was written,
 * that a file from elsewhere is read and written back byte for byte, and that every broken header or chunk length is
 * refused naming the file, the part of the container and the byte offset. The expected layout comes from glTF 2.0
 * §4.4, read here by the tests' own GLB helpers (glb-json.ts), not by the module under test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { GLB_CHUNK_BIN, GLB_CHUNK_JSON, GLB_MAGIC, glbJsonPrefix, isGlb, parseGlb, writeGlb } from '../../workers/formats/gltf/glb.ts';
import { glbBin, glbJson } from './glb-json.ts';
import { dataFile } from './shared-data.ts';

const u32 = (bytes: Uint8Array, at: number): number => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(at, true);
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/** A GLB assembled by hand: the header, then each chunk as given (its length field as given, no padding added). */
function handGlb(chunks: { length?: number; type: number; data: Uint8Array }[], total?: number): Uint8Array {
  const size = 12 + chunks.reduce((sum, c) => sum + 8 + c.data.length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, GLB_MAGIC, true);
  view.setUint32(4, 2, true);
  view.setUint32(8, total ?? size, true);
  let at = 12;
  for (const chunk of chunks) {
    view.setUint32(at, chunk.length ?? chunk.data.length, true);
    view.setUint32(at + 4, chunk.type, true);
    out.set(chunk.data, at + 8);
    at += 8 + chunk.data.length;
  }
  return out;
}

const refused = (bytes: Uint8Array, message: string): void =>
  assert.throws(
    () => parseGlb(bytes, 'x.glb'),
    (error: Error) => {
      assert.equal(error.message, message);
      return true;
    },
  );

test('writeGlb: the header, the chunk types and lengths, space and zero padding to 4 bytes (glTF 2.0 §4.4)', () => {
  for (const jsonPad of [0, 1, 2, 3])
    for (const binLength of [1, 2, 3, 4, 5, 8]) {
      // {"a":"xx…"}: 8 characters and the padding asked for, so that every remainder mod 4 occurs.
      const json = { a: 'x'.repeat(4 + ((4 - jsonPad) % 4)) };
      const jsonText = JSON.stringify(json);
      const bin = Uint8Array.from({ length: binLength }, (_, k) => k + 1);
      const glb = writeGlb(json, bin);
      const jsonChunk = Math.ceil(jsonText.length / 4) * 4;
      const binChunk = Math.ceil(binLength / 4) * 4;
      const label = `JSON of ${jsonText.length} bytes, BIN of ${binLength}`;
      assert.equal(glb.length, 12 + 8 + jsonChunk + 8 + binChunk, `${label}: the file's size`);
      assert.deepEqual(
        [u32(glb, 0), u32(glb, 4), u32(glb, 8), u32(glb, 12), u32(glb, 16)],
        [0x46546c67, 2, glb.length, jsonChunk, 0x4e4f534a],
        `${label}: magic 'glTF', version 2, total length, JSON chunk length and type`,
      );
      assert.deepEqual([u32(glb, 20 + jsonChunk), u32(glb, 24 + jsonChunk)], [binChunk, 0x004e4942], `${label}: BIN chunk header`);
      assert.equal(text(glb.subarray(20, 20 + jsonText.length)), jsonText, `${label}: the JSON text`);
      assert.ok(
        glb.subarray(20 + jsonText.length, 20 + jsonChunk).every((b) => b === 0x20),
        `${label}: the JSON chunk is padded with spaces`,
      );
      assert.deepEqual([...glb.subarray(28 + jsonChunk, 28 + jsonChunk + binLength)], [...bin], `${label}: the binary data`);
      assert.ok(
        glb.subarray(28 + jsonChunk + binLength).every((b) => b === 0),
        `${label}: the BIN chunk is padded with zeros`,
      );
      assert.deepEqual(glbJson(glb), json, `${label}: an independent reader reads the JSON`);
    }
});

test('writeGlb then parseGlb: the JSON text and binary data come back; an empty binary chunk is left out', () => {
  const json = { asset: { version: '2.0' }, buffers: [{ byteLength: 7 }] };
  const bin = Uint8Array.of(9, 8, 7, 6, 5, 4, 3);
  const { jsonBytes, bin: read } = parseGlb(writeGlb(json, bin), 'r.glb');
  assert.deepEqual(JSON.parse(text(jsonBytes)), json, 'the JSON (with its padding spaces, which JSON allows)');
  assert.deepEqual([...read!], [9, 8, 7, 6, 5, 4, 3, 0], 'the binary chunk: the data and its padding');
  // The JSON passed as text is written as it is.
  const asText = new TextEncoder().encode('{"asset":{"version":"2.0"}}');
  assert.equal(text(parseGlb(writeGlb(asText, bin), 'r.glb').jsonBytes).trimEnd(), '{"asset":{"version":"2.0"}}', 'JSON given as text');
  const noBin = writeGlb(json, new Uint8Array(0));
  assert.equal(noBin.length, 20 + Math.ceil(JSON.stringify(json).length / 4) * 4, 'no BIN chunk header when the data is empty');
  assert.equal(parseGlb(noBin, 'r.glb').bin, null, 'a GLB without a binary chunk reads as null');
});

test('parseGlb then writeGlb: a GLB written elsewhere comes back byte for byte', () => {
  for (const name of ['RiggedSimple', 'RiggedFigure', 'CesiumMan']) {
    const file = new Uint8Array(readFileSync(dataFile('gltf', name, `${name}.glb`)));
    const { jsonBytes, bin } = parseGlb(file, `${name}.glb`);
    assert.deepEqual([...bin!], [...glbBin(file)], `${name}: the binary chunk as the tests' reader finds it`);
    const json = JSON.parse(text(jsonBytes)) as { buffers: { byteLength: number }[] };
    assert.ok(bin!.length - json.buffers[0].byteLength < 4, `${name}: the binary chunk holds buffer 0 and at most 3 bytes of padding`);
    assert.ok(Buffer.from(writeGlb(jsonBytes, bin!)).equals(Buffer.from(file)), `${name}: written back, the same bytes`);
  }
});

test('parseGlb: chunks of unknown type and chunks after the binary chunk are skipped; unpadded lengths are read as written', () => {
  const json = new TextEncoder().encode('{"a":1}');
  const glb = handGlb([
    { type: GLB_CHUNK_JSON, data: json },
    { type: GLB_CHUNK_BIN, data: Uint8Array.of(1, 2, 3) },
    { type: 0x12345678, data: Uint8Array.of(4, 5) },
  ]);
  const read = parseGlb(glb, 'x.glb');
  assert.equal(text(read.jsonBytes), '{"a":1}', 'the JSON chunk of 7 bytes');
  assert.deepEqual([...read.bin!], [1, 2, 3], 'the BIN chunk of 3 bytes, the chunk after it skipped');
  const otherFirst = handGlb([
    { type: GLB_CHUNK_JSON, data: json },
    { type: 0x41424344, data: Uint8Array.of(1) },
  ]);
  assert.equal(parseGlb(otherFirst, 'x.glb').bin, null, 'a second chunk that is not BIN is not the binary chunk');
  // Bytes after the length the header gives are not part of the file's chunks.
  const trailing = new Uint8Array(glb.length + 6);
  trailing.set(glb);
  assert.deepEqual([...parseGlb(trailing, 'x.glb').bin!], [1, 2, 3], 'bytes past the header length are ignored');
});

test('parseGlb: a broken header or chunk is refused naming the file, the place and the byte offset', () => {
  const json = new TextEncoder().encode('{"a":1} ');
  const good = handGlb([
    { type: GLB_CHUNK_JSON, data: json },
    { type: GLB_CHUNK_BIN, data: new Uint8Array(8) },
  ]);
  assert.equal(good.length, 44, 'the hand-made file: 12 + 8 + 8 + 8 + 8 bytes');
  refused(good.subarray(0, 19), 'x.glb: GLB header: the file ends after 19 bytes, before the first chunk (a GLB needs at least 20)');
  const magic = good.slice();
  magic[0] = 0x67 + 1;
  refused(magic, "x.glb: GLB header: the file does not start with 'glTF'");
  const version = good.slice();
  version[4] = 1;
  refused(version, 'x.glb: GLB header: GLB version 1 (byte 4) is not supported (Rigwright reads glTF 2.0)');
  refused(good.subarray(0, 40), 'x.glb: GLB header: the header gives a length of 44 bytes (byte 8), the file has 40; it looks truncated');
  refused(
    handGlb([{ type: GLB_CHUNK_JSON, data: json }], 16),
    'x.glb: GLB header: the header gives a length of 16 bytes (byte 8), too short for the JSON chunk (at least 20)',
  );
  refused(handGlb([{ type: GLB_CHUNK_BIN, data: json }]), "x.glb: GLB chunk 0: the first chunk (byte 12) is not JSON: its type is 'BIN'");
  refused(handGlb([{ type: 0xdeadbeef, data: json }]), 'x.glb: GLB chunk 0: the first chunk (byte 12) is not JSON: its type is 0xdeadbeef');
  refused(
    handGlb([{ type: GLB_CHUNK_JSON, data: json, length: 9 }]),
    'x.glb: GLB chunk 0: the JSON chunk at byte 12 claims 9 bytes, only 8 follow',
  );
  refused(
    handGlb([
      { type: GLB_CHUNK_JSON, data: json },
      { type: GLB_CHUNK_BIN, data: new Uint8Array(8), length: 4096 },
    ]),
    'x.glb: GLB chunk 1: the BIN chunk at byte 28 claims 4096 bytes, only 8 follow',
  );
  // A chunk 1 of another type is not read, whatever length it gives (the JSON is what is at fault then).
  const other = handGlb([
    { type: GLB_CHUNK_JSON, data: json },
    { type: 0x54534554, data: new Uint8Array(8), length: 4096 },
  ]);
  assert.equal(parseGlb(other, 'x.glb').bin, null, 'a chunk 1 that is not BIN is ignored, its length unchecked');
  // A chunk header cut short: the header length covers 4 bytes after the JSON chunk.
  const cut = new Uint8Array(32);
  cut.set(good.subarray(0, 28));
  new DataView(cut.buffer).setUint32(8, 32, true);
  refused(cut, 'x.glb: GLB chunk 1: 4 bytes follow at byte 28, too few for a chunk header (8)');
});

test('isGlb and glbJsonPrefix look at the header only', () => {
  const glb = writeGlb({ extensions: { X: 1 } }, Uint8Array.of(1));
  assert.equal(isGlb(glb), true, 'a GLB');
  assert.equal(isGlb(new TextEncoder().encode('{"asset":{}}')), false, 'glTF JSON is not a GLB');
  assert.equal(isGlb(glb.subarray(0, 11)), false, 'fewer bytes than a file header');
  assert.match(text(glbJsonPrefix(glb)), /^\{"extensions":\{"X":1\}\} *$/, 'the JSON chunk');
  // Cut inside the JSON chunk: as much of it as there is.
  assert.equal(text(glbJsonPrefix(glb.subarray(0, 25))), '{"ext', 'the JSON chunk up to the end of the bytes');
  assert.equal(glbJsonPrefix(new TextEncoder().encode('{"extensions":{"X":1}}')).length, 0, 'nothing for a text file');
});
