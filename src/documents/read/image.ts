import sharp from 'sharp';
import { UnreadableFile } from './pdf.ts';

// Image handling around OCR: any stored image (PNG, JPEG, TIFF) or raw pixels from a PDF page
// become a clean greyscale PNG of readable size; rotation of stored files.

const MIN_WIDTH = 1600;

/** A greyscale PNG for OCR, upscaled when small (tesseract reads 10+ pixel high glyphs best). */
export async function forOcr(
  input: Buffer | { data: Uint8ClampedArray; width: number; height: number; channels: 1 | 3 | 4 },
  degrees = 0,
  /** A small copy (orientation probes): this width, whatever the source. */
  probeWidth?: number,
): Promise<Buffer> {
  try {
    let img = Buffer.isBuffer(input)
      ? sharp(input, { failOn: 'error' })
      : sharp(Buffer.from(input.data.buffer, input.data.byteOffset, input.data.byteLength), {
          raw: { width: input.width, height: input.height, channels: input.channels },
        });
    if (degrees) img = img.rotate(degrees);
    const meta = await img.metadata();
    const width = (degrees === 90 || degrees === 270 ? meta.height : meta.width) ?? MIN_WIDTH;
    if (probeWidth) img = sharp(await img.png().toBuffer()).resize({ width: probeWidth });
    else if (width < MIN_WIDTH)
      img = img.resize({ width: Math.min(MIN_WIDTH, width * 3), kernel: 'lanczos3' });
    return await img.greyscale().normalise().png().toBuffer();
  } catch (err) {
    throw new UnreadableFile(`not a readable image: ${(err as Error).message}`);
  }
}

/** The image turned clockwise by 90, 180 or 270 degrees, in its own format. */
export async function rotateImage(bytes: Buffer, degrees: 90 | 180 | 270): Promise<Buffer> {
  try {
    const img = sharp(bytes, { failOn: 'error' });
    const { format } = await img.metadata();
    const rotated = img.rotate(degrees);
    if (format === 'jpeg') return await rotated.jpeg({ quality: 92 }).toBuffer();
    if (format === 'tiff') return await rotated.tiff().toBuffer();
    return await rotated.png().toBuffer();
  } catch (err) {
    throw new UnreadableFile(`not a readable image: ${(err as Error).message}`);
  }
}
