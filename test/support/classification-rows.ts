/**
 * Rows of the three classification sets in their owners' exact formats: one JSON object a line with
 * the fields, field order and value types of the Hugging Face files (codeparrot/codecomplex's
 * data.jsonl; CodeXGLUE's BigCloneBench and Devign rows, whose `label` / `target` are booleans).
 * The code is short but real-looking Java and C.
 */

const JAVA_CONSTANT = `import java.util.*;\n\npublic class Main {\n    public static void main(String[] args) {\n        Scanner in = new Scanner(System.in);\n        long n = in.nextLong();\n        System.out.println(n * (n + 1) / 2);\n    }\n}\n`;
const JAVA_QUADRATIC = `import java.io.*;\nimport java.util.*;\n\npublic class Main {\n    public static void main(String[] args) throws IOException {\n        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));\n        int n = Integer.parseInt(br.readLine().trim());\n        int count = 0;\n        for (int i = 0; i < n; i++)\n            for (int j = i + 1; j < n; j++)\n                if ((i ^ j) % 3 == 0) count++;\n        System.out.println(count);\n    }\n}\n`;
const JAVA_NLOGN = `import java.util.*;\n\npublic class Main {\n    public static void main(String[] args) {\n        Scanner sc = new Scanner(System.in);\n        int n = sc.nextInt();\n        int[] a = new int[n];\n        for (int i = 0; i < n; i++) a[i] = sc.nextInt();\n        Arrays.sort(a);\n        System.out.println(a[n / 2]);\n    }\n}\n`;

/** codeparrot/codecomplex rows (data.jsonl: src, complexity, problem, from). */
export const COMPLEXITY_ROWS = [
  { src: JAVA_CONSTANT, complexity: 'constant', problem: '1080_A. Petya and Origami', from: 'CODEFORCES' },
  { src: JAVA_QUADRATIC, complexity: 'quadratic', problem: '1179_B. Tolik and His Uncle', from: 'CODEFORCES' },
  { src: JAVA_NLOGN, complexity: 'nlogn', problem: '1101_B. Accordion', from: 'CODEFORCES' },
  { src: JAVA_QUADRATIC.replace('count++', 'count += 2'), complexity: 'quadratic', problem: '1181_A. Chunga-Changa', from: 'CODEFORCES' },
] as const;

const FUNC_COPY_A = `    public static void copyFile(File in, File out) throws IOException {\n        FileChannel inChannel = new FileInputStream(in).getChannel();\n        FileChannel outChannel = new FileOutputStream(out).getChannel();\n        try {\n            inChannel.transferTo(0, inChannel.size(), outChannel);\n        } finally {\n            if (inChannel != null) inChannel.close();\n            if (outChannel != null) outChannel.close();\n        }\n    }\n`;
const FUNC_COPY_B = `    private static void copy(File src, File dst) throws IOException {\n        InputStream in = new FileInputStream(src);\n        OutputStream out = new FileOutputStream(dst);\n        byte[] buf = new byte[1024];\n        int len;\n        while ((len = in.read(buf)) > 0) out.write(buf, 0, len);\n        in.close();\n        out.close();\n    }\n`;
const FUNC_MD5 = `    public static String md5(String text) throws NoSuchAlgorithmException {\n        MessageDigest md = MessageDigest.getInstance("MD5");\n        md.update(text.getBytes());\n        return new BigInteger(1, md.digest()).toString(16);\n    }\n`;

/** CodeXGLUE BigCloneBench rows (id, id1, id2, func1, func2, label). */
export const CLONE_ROWS = [
  { id: 0, id1: 13988825, id2: 8660836, func1: FUNC_COPY_A, func2: FUNC_COPY_B, label: true },
  { id: 1, id1: 13988825, id2: 21354223, func1: FUNC_COPY_A, func2: FUNC_MD5, label: false },
  { id: 2, id1: 80378, id2: 18548122, func1: FUNC_MD5, func2: FUNC_COPY_B, label: false },
  { id: 3, id1: 8660836, id2: 10592003, func1: FUNC_COPY_B, func2: FUNC_COPY_A, label: true },
] as const;

const C_LEAK = `static int vdadec_init(AVCodecContext *avctx)\n{\n    VDADecoderContext *ctx = avctx->priv_data;\n    ctx->h264_initialized = 0;\n    char *buf = av_malloc(64);\n    if (!buf)\n        return AVERROR(ENOMEM);\n    if (avctx->width <= 0)\n        return AVERROR(EINVAL);\n    av_free(buf);\n    return 0;\n}\n`;
const C_OK = `static void qemu_put_be16(QEMUFile *f, unsigned int v)\n{\n    qemu_put_byte(f, v >> 8);\n    qemu_put_byte(f, v);\n}\n`;
const C_OVERFLOW = `static int read_name(const uint8_t *p, int len, char *out)\n{\n    char name[16];\n    memcpy(name, p, len);\n    strcpy(out, name);\n    return len;\n}\n`;

/** CodeXGLUE Devign rows (id, func, target, project, commit_id). */
export const DEFECT_ROWS = [
  { id: 0, func: C_LEAK, target: true, project: 'FFmpeg', commit_id: '973b1a6b9070e2bf17d17568cbaf4043ce931f51' },
  { id: 1, func: C_OK, target: false, project: 'qemu', commit_id: '3a3b8502e6f0c8d30865c5f9d2e3f1b2c4d5e6f7' },
  { id: 2, func: C_OVERFLOW, target: true, project: 'qemu', commit_id: '1f2e3d4c5b6a79880716253443526170a9b8c7d6' },
  { id: 3, func: C_OK.replace('be16', 'be16_2'), target: false, project: 'FFmpeg', commit_id: '0a1b2c3d4e5f60718293a4b5c6d7e8f901234567' },
] as const;

export function jsonl(rows: ReadonlyArray<object>): string {
  return rows.map((r) => JSON.stringify(r) + '\n').join('');
}
