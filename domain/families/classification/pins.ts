/**
 * What stored classification problems must stay: for fixed rows, the bytes a sweep stores and what every step
 * makes of them read back (../pins.ts; checked by test/families/stored-artefacts.test.ts). A pin
 * changes only with a patched() change that keeps running sweeps readable (docs/workflow-versions.md).
 */
import { jsonLines, type StoredProblemPin } from '../pins.js';

export const storedPins: StoredProblemPin[] = [
  {
    case: 'complexity',
    entry: { name: 'complexity', family: 'classification', task: 'complexity', path: 'complexity.jsonl' },
    texts: {
      rows: jsonLines([
        '{"src":"import java.util.*;\\n\\npublic class Main {\\n    public static void main(String[] args) {\\n        Scanner in = new Scanner(System.in);\\n        long n = in.nextLong();\\n        System.out.println(n * (n + 1) / 2);\\n    }\\n}\\n","complexity":"constant","problem":"1080_A. Petya and Origami","from":"CODEFORCES"}',
        '{"src":"import java.io.*;\\nimport java.util.*;\\n\\npublic class Main {\\n    public static void main(String[] args) throws IOException {\\n        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));\\n        int n = Integer.parseInt(br.readLine().trim());\\n        int count = 0;\\n        for (int i = 0; i < n; i++)\\n            for (int j = i + 1; j < n; j++)\\n                if ((i ^ j) % 3 == 0) count++;\\n        System.out.println(count);\\n    }\\n}\\n","complexity":"quadratic","problem":"1179_B. Tolik and His Uncle","from":"CODEFORCES"}',
        '{"src":"import java.util.*;\\n\\npublic class Main {\\n    public static void main(String[] args) {\\n        Scanner sc = new Scanner(System.in);\\n        int n = sc.nextInt();\\n        int[] a = new int[n];\\n        for (int i = 0; i < n; i++) a[i] = sc.nextInt();\\n        Arrays.sort(a);\\n        System.out.println(a[n / 2]);\\n    }\\n}\\n","complexity":"nlogn","problem":"1101_B. Accordion","from":"CODEFORCES"}',
        '{"src":"import java.io.*;\\nimport java.util.*;\\n\\npublic class Main {\\n    public static void main(String[] args) throws IOException {\\n        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));\\n        int n = Integer.parseInt(br.readLine().trim());\\n        int count = 0;\\n        for (int i = 0; i < n; i++)\\n            for (int j = i + 1; j < n; j++)\\n                if ((i ^ j) % 3 == 0) count += 2;\\n        System.out.println(count);\\n    }\\n}\\n","complexity":"quadratic","problem":"1181_A. Chunga-Changa","from":"CODEFORCES"}',
      ]),
    },
    stored: '07f7fb74271ffc247d971676b7f14858a1490821e48acb6cd40f15d4d6ed44eb',
    behaviour: 'f8016c739ead040276461cae1b25df6c3353227b1253493946e8c8201e349e24',
  },
  {
    case: 'clone',
    entry: { name: 'clone', family: 'classification', task: 'clone', path: 'clone.jsonl' },
    texts: {
      rows: jsonLines([
        '{"id":0,"id1":13988825,"id2":8660836,"func1":"    public static void copyFile(File in, File out) throws IOException {\\n        FileChannel inChannel = new FileInputStream(in).getChannel();\\n        FileChannel outChannel = new FileOutputStream(out).getChannel();\\n        try {\\n            inChannel.transferTo(0, inChannel.size(), outChannel);\\n        } finally {\\n            if (inChannel != null) inChannel.close();\\n            if (outChannel != null) outChannel.close();\\n        }\\n    }\\n","func2":"    private static void copy(File src, File dst) throws IOException {\\n        InputStream in = new FileInputStream(src);\\n        OutputStream out = new FileOutputStream(dst);\\n        byte[] buf = new byte[1024];\\n        int len;\\n        while ((len = in.read(buf)) > 0) out.write(buf, 0, len);\\n        in.close();\\n        out.close();\\n    }\\n","label":true}',
        '{"id":1,"id1":13988825,"id2":21354223,"func1":"    public static void copyFile(File in, File out) throws IOException {\\n        FileChannel inChannel = new FileInputStream(in).getChannel();\\n        FileChannel outChannel = new FileOutputStream(out).getChannel();\\n        try {\\n            inChannel.transferTo(0, inChannel.size(), outChannel);\\n        } finally {\\n            if (inChannel != null) inChannel.close();\\n            if (outChannel != null) outChannel.close();\\n        }\\n    }\\n","func2":"    public static String md5(String text) throws NoSuchAlgorithmException {\\n        MessageDigest md = MessageDigest.getInstance(\\"MD5\\");\\n        md.update(text.getBytes());\\n        return new BigInteger(1, md.digest()).toString(16);\\n    }\\n","label":false}',
        '{"id":2,"id1":80378,"id2":18548122,"func1":"    public static String md5(String text) throws NoSuchAlgorithmException {\\n        MessageDigest md = MessageDigest.getInstance(\\"MD5\\");\\n        md.update(text.getBytes());\\n        return new BigInteger(1, md.digest()).toString(16);\\n    }\\n","func2":"    private static void copy(File src, File dst) throws IOException {\\n        InputStream in = new FileInputStream(src);\\n        OutputStream out = new FileOutputStream(dst);\\n        byte[] buf = new byte[1024];\\n        int len;\\n        while ((len = in.read(buf)) > 0) out.write(buf, 0, len);\\n        in.close();\\n        out.close();\\n    }\\n","label":false}',
        '{"id":3,"id1":8660836,"id2":10592003,"func1":"    private static void copy(File src, File dst) throws IOException {\\n        InputStream in = new FileInputStream(src);\\n        OutputStream out = new FileOutputStream(dst);\\n        byte[] buf = new byte[1024];\\n        int len;\\n        while ((len = in.read(buf)) > 0) out.write(buf, 0, len);\\n        in.close();\\n        out.close();\\n    }\\n","func2":"    public static void copyFile(File in, File out) throws IOException {\\n        FileChannel inChannel = new FileInputStream(in).getChannel();\\n        FileChannel outChannel = new FileOutputStream(out).getChannel();\\n        try {\\n            inChannel.transferTo(0, inChannel.size(), outChannel);\\n        } finally {\\n            if (inChannel != null) inChannel.close();\\n            if (outChannel != null) outChannel.close();\\n        }\\n    }\\n","label":true}',
      ]),
    },
    stored: 'd5833929810c6ce7108f715c875a1fe8ca589a93fd23c364ed0d67894cde51ef',
    behaviour: '641e06fe7775c8d31b1dbdbc5ae375127352ec9c930af43d7400241b1b8c62d6',
  },
  {
    case: 'defect',
    entry: { name: 'defect', family: 'classification', task: 'defect', path: 'defect.jsonl' },
    texts: {
      rows: jsonLines([
        '{"id":0,"func":"static int vdadec_init(AVCodecContext *avctx)\\n{\\n    VDADecoderContext *ctx = avctx->priv_data;\\n    ctx->h264_initialized = 0;\\n    char *buf = av_malloc(64);\\n    if (!buf)\\n        return AVERROR(ENOMEM);\\n    if (avctx->width <= 0)\\n        return AVERROR(EINVAL);\\n    av_free(buf);\\n    return 0;\\n}\\n","target":true,"project":"FFmpeg","commit_id":"973b1a6b9070e2bf17d17568cbaf4043ce931f51"}',
        '{"id":1,"func":"static void qemu_put_be16(QEMUFile *f, unsigned int v)\\n{\\n    qemu_put_byte(f, v >> 8);\\n    qemu_put_byte(f, v);\\n}\\n","target":false,"project":"qemu","commit_id":"3a3b8502e6f0c8d30865c5f9d2e3f1b2c4d5e6f7"}',
        '{"id":2,"func":"static int read_name(const uint8_t *p, int len, char *out)\\n{\\n    char name[16];\\n    memcpy(name, p, len);\\n    strcpy(out, name);\\n    return len;\\n}\\n","target":true,"project":"qemu","commit_id":"1f2e3d4c5b6a79880716253443526170a9b8c7d6"}',
        '{"id":3,"func":"static void qemu_put_be16_2(QEMUFile *f, unsigned int v)\\n{\\n    qemu_put_byte(f, v >> 8);\\n    qemu_put_byte(f, v);\\n}\\n","target":false,"project":"FFmpeg","commit_id":"0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"}',
      ]),
    },
    stored: 'caba7f5ddc9b0454b590bb5cd338af32096a04a0ddc1bf70cfe9e74b1703e9f9',
    behaviour: 'e29cabddbd0ad3b9cdec1dc6e12c1bc017c04bb5b6251eefd5c045e6ed5b81fb',
  },
];
