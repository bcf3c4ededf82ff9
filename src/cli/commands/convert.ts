import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { convertDocument, type ConvertFormat } from '../../documents/convert/convert-document.js';
import { documentObject } from '../../documents/convert/document-object.js';
import { isDocumentError } from '../../documents/document-error.js';
import { CONVERT_MAX_BYTES } from '../../documents/convert/limits.js';
import { printJson, printResult } from '../output.js';
import { UserError } from '../user-error.js';

const FORMAT_NAMES: Record<string, ConvertFormat> = { md: 'markdown', markdown: 'markdown', text: 'text', txt: 'text' };

/**
 * `igw convert FILE`: the same conversion as POST /v1/documents/convert, run in this process —
 * a local file needs no gateway, no key and no upload.
 */
export function registerConvert(program: Command): void {
  program
    .command('convert')
    .description('convert a document (PDF, DOCX, HTML, Markdown, CSV, JSON, text, code) to Markdown or plain text')
    .argument('<file>', 'the document to convert')
    .option('--format <format>', 'md (Markdown, the default) or text')
    .option('--json', 'print the document object of POST /v1/documents/convert (pages, metadata)')
    .addHelpText('after', '\nExamples:\n  igw convert report.pdf > report.md\n  igw convert page.html --format text\n  igw convert contract.docx --json | jq .metadata')
    .action(async (file: string, options: { format?: string; json?: boolean }) => {
      const format = FORMAT_NAMES[(options.format ?? 'md').toLowerCase()];
      if (format === undefined) throw new UserError(`--format must be md or text, not "${options.format}".`, 'Run igw convert FILE --format md (or --format text).');
      const info = await stat(file).catch(() => undefined);
      if (info === undefined || !info.isFile()) throw new UserError(`${file} is not a file.`, 'Check the path and run igw convert again.');
      if (info.size > CONVERT_MAX_BYTES) throw new UserError(`${file} is larger than ${CONVERT_MAX_BYTES / (1024 * 1024)} MB.`, 'Split it and convert the parts.');
      const filename = path.basename(file);
      let converted;
      try {
        converted = await convertDocument({ bytes: await readFile(file), filename }, format);
      } catch (error) {
        if (isDocumentError(error)) throw new UserError(error.message, 'Convert a PDF, DOCX, HTML, Markdown, CSV, JSON, text or source file.');
        throw error;
      }
      const document = documentObject(filename, format, converted);
      if (options.json === true) return printJson(document);
      printResult(document.text);
    });
}
