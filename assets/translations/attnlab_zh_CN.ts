<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AppMenus</name>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>The language changes to %1 when AttnLab starts again.</source>
        <translation>AttnLab 下次启动时界面语言将切换为%1。</translation>
    </message>
    <message>
        <source>Restart now</source>
        <translation>立即重启</translation>
    </message>
    <message>
        <source>Later</source>
        <translation>稍后</translation>
    </message>
    <message>
        <source>AttnLab</source>
        <translation>AttnLab</translation>
    </message>
    <message>
        <source>AttnLab runs the common attention variants on the CPU and shows their patterns, receptive fields, measured timing curves and FLOP breakdowns live while you change the sequence length n, the head size d and the number of heads h.</source>
        <translation>AttnLab 在 CPU 上运行常见的注意力变体，在你调整序列长度 n、头维度 d 和头数 h 的同时，实时展示它们的稀疏模式、感受野、实测耗时曲线和浮点运算量分解。</translation>
    </message>
    <message>
        <source>Parameter panel</source>
        <translation>参数面板</translation>
    </message>
    <message>
        <source>On the left: the variant (grouped by family, with its summary), the shape (n, d, h, the head shown, causal), every parameter of the variant with its default and range (↺ resets it), the inputs Q, K, V (seeded Gaussian, local similarity or NPY files), model shapes, display options and compare mode (2–4 variants side by side on the same inputs). A field changes with the mouse wheel only after a click gives it focus.</source>
        <translation>左侧依次为：变体 (按类别分组并附简介)、形状 (n、d、h、显示的头、因果)、该变体的全部参数及其默认值和取值范围 (↺ 恢复默认)、输入 Q、K、V (带种子的高斯随机、局部相似或 NPY 文件)、模型形状、显示选项，以及对比模式 (在同一输入上并排比较 2–4 个变体)。输入框只有在单击获得焦点后才会响应鼠标滚轮。</translation>
    </message>
    <message>
        <source>Views</source>
        <translation>视图</translation>
    </message>
    <message>
        <source>&lt;b&gt;Pattern&lt;/b&gt;: the mask M or the attention weights W of one head. Hover names the cell, a click highlights what a query row attends to, the wheel zooms and a drag pans; a double click shows everything.</source>
        <translation>&lt;b&gt;模式&lt;/b&gt;：单个头的掩码 M 或注意力权重 W。悬停显示单元格信息，单击高亮某一查询行关注的键，滚轮缩放，拖动平移；双击显示全部。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Receptive field&lt;/b&gt;: how many layers a query needs to reach each key, and the reach against the number of layers.</source>
        <translation>&lt;b&gt;感受野&lt;/b&gt;：查询需要经过多少层才能到达每个键，以及覆盖范围随层数的变化。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Timing&lt;/b&gt;: measured wall time against n (log-log) beside the cost model&apos;s prediction, measured in the background while the tab is shown.</source>
        <translation>&lt;b&gt;耗时&lt;/b&gt;：实测耗时随 n 的变化 (双对数) 及计算量模型的预测；仅在该标签页显示时于后台测量。</translation>
    </message>
    <message>
        <source>&lt;b&gt;FLOP breakdown&lt;/b&gt;: the cost of one layer split into projections, attention core and FFN against n.</source>
        <translation>&lt;b&gt;计算量分解&lt;/b&gt;：单层的计算量按投影、注意力核心和 FFN 拆分，随 n 变化。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Accuracy&lt;/b&gt;: how far the approximating variants are from full softmax attention.</source>
        <translation>&lt;b&gt;精度&lt;/b&gt;：各近似变体与完整 softmax 注意力的差距。</translation>
    </message>
    <message>
        <source>&lt;b&gt;ImGui lab&lt;/b&gt;: the same pattern drawn live with Dear ImGui (needs OpenGL).</source>
        <translation>&lt;b&gt;ImGui 实验台&lt;/b&gt;：用 Dear ImGui 实时绘制同一模式 (需要 OpenGL)。</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>File → Export figure saves the current figure as PNG, SVG or PDF, File → Export data saves its numbers as CSV, and sessions (File → Save session) keep every setting.</source>
        <translation>“文件 → 导出图表”将当前图表保存为 PNG、SVG 或 PDF，“文件 → 导出数据”将其数据保存为 CSV，会话 (“文件 → 保存会话”) 保存全部设置。</translation>
    </message>
    <message>
        <source>Command line</source>
        <translation>命令行</translation>
    </message>
    <message>
        <source>Every figure and measurement is also available without a window; &lt;code&gt;attnlab --help&lt;/code&gt; lists the subcommands.</source>
        <translation>所有图表和测量均可在无窗口时使用；&lt;code&gt;attnlab --help&lt;/code&gt; 列出全部子命令。</translation>
    </message>
    <message>
        <source>In the pattern view: the wheel zooms at the cursor, a drag pans, a click highlights a query row and a double click shows everything.</source>
        <translation>在模式视图中：滚轮以光标为中心缩放，拖动平移，单击高亮某一查询行，双击显示全部。</translation>
    </message>
    <message>
        <source>&lt;h3&gt;AttnLab %1&lt;/h3&gt;&lt;p&gt;See and measure what attention mechanisms cost: sparse, linear, low-rank and data-dependent variants against full softmax attention.&lt;/p&gt;&lt;p&gt;Built with Qt %2 and Dear ImGui.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;AttnLab %1&lt;/h3&gt;&lt;p&gt;观察并测量注意力机制的代价：稀疏、线性、低秩及数据相关的变体与完整 softmax 注意力的对比。&lt;/p&gt;&lt;p&gt;基于 Qt %2 和 Dear ImGui 构建。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&amp;Language (applies after restart)</source>
        <translation>语言(&amp;L) (重启后生效)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>AttnLab &amp;help</source>
        <translation>AttnLab 帮助(&amp;H)</translation>
    </message>
    <message>
        <source>AttnLab help</source>
        <translation>AttnLab 帮助</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>&amp;About AttnLab</source>
        <translation>关于 AttnLab(&amp;A)</translation>
    </message>
    <message>
        <source>About AttnLab</source>
        <translation>关于 AttnLab</translation>
    </message>
</context>
<context>
    <name>CoreText</name>
    <message>
        <source>band</source>
        <translation>局部带</translation>
    </message>
    <message>
        <source>strided columns</source>
        <translation>跨步列</translation>
    </message>
    <message>
        <source>own block</source>
        <translation>所在块</translation>
    </message>
    <message>
        <source>summary columns</source>
        <translation>汇总列</translation>
    </message>
    <message>
        <source>own chunk</source>
        <translation>所在块</translation>
    </message>
    <message>
        <source>window</source>
        <translation>窗口</translation>
    </message>
    <message>
        <source>globals</source>
        <translation>全局词元</translation>
    </message>
    <message>
        <source>random</source>
        <translation>随机键</translation>
    </message>
    <message>
        <source>own segment</source>
        <translation>所在段</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <source>round 1</source>
        <translation>第 1 轮</translation>
    </message>
    <message>
        <source>round 2</source>
        <translation>第 2 轮</translation>
    </message>
    <message>
        <source>round 3</source>
        <translation>第 3 轮</translation>
    </message>
    <message>
        <source>round 4</source>
        <translation>第 4 轮</translation>
    </message>
    <message>
        <source>round 5</source>
        <translation>第 5 轮</translation>
    </message>
    <message>
        <source>round 6</source>
        <translation>第 6 轮</translation>
    </message>
    <message>
        <source>round 7</source>
        <translation>第 7 轮</translation>
    </message>
    <message>
        <source>round 8</source>
        <translation>第 8 轮</translation>
    </message>
    <message>
        <source>QKV projections</source>
        <translation>QKV 投影</translation>
    </message>
    <message>
        <source>attention core</source>
        <translation>注意力核心</translation>
    </message>
    <message>
        <source>output projection</source>
        <translation>输出投影</translation>
    </message>
    <message>
        <source>FFN (width 4hd)</source>
        <translation>FFN (宽度 4hd)</translation>
    </message>
    <message>
        <source>never for n ≤ %1</source>
        <translation>n ≤ %1 时从未出现</translation>
    </message>
    <message>
        <source>for every n</source>
        <translation>对所有 n 均成立</translation>
    </message>
    <message>
        <source>BigBird</source>
        <translation>BigBird</translation>
    </message>
    <message>
        <source>Sparse patterns</source>
        <translation>稀疏模式</translation>
    </message>
    <message>
        <source>Sliding window + global tokens + r random keys per query: O(n·(w+g+r)·d).</source>
        <translation>滑动窗口 + 全局令牌 + 每个查询 r 个随机键：O(n·(w+g+r)·d)。</translation>
    </message>
    <message>
        <source>Window size w; each query sees floor(w/2) positions on each side</source>
        <translation>窗口大小 w；每个查询看到两侧各 floor(w/2) 个位置</translation>
    </message>
    <message>
        <source>Global tokens g: positions 0..g-1 (clamped to n)</source>
        <translation>全局令牌数 g：位置 0..g-1 (不超过 n)</translation>
    </message>
    <message>
        <source>Random extra keys r per query</source>
        <translation>每个查询额外的随机键数 r</translation>
    </message>
    <message>
        <source>Block size b: window, globals and random keys count blocks of b tokens (1: tokens)</source>
        <translation>块大小 b：窗口、全局与随机键均以 b 个词元的块计数（1：按词元）</translation>
    </message>
    <message>
        <source>Block-local chunks</source>
        <translation>块内局部注意力</translation>
    </message>
    <message>
        <source>Each query attends only inside its own chunk of c positions: O(n·c·d).</source>
        <translation>每个查询只在自身所在的 c 个位置的块内计算注意力：O(n·c·d)。</translation>
    </message>
    <message>
        <source>Chunk length c</source>
        <translation>块长度 c</translation>
    </message>
    <message>
        <source>Pattern expression</source>
        <translation>模式表达式</translation>
    </message>
    <message>
        <source>Any pattern composed from windows, strides, blocks, sinks, globals, documents and random keys.</source>
        <translation>由窗口、跨步、分块、汇聚令牌、全局令牌、文档边界和随机键组合而成的任意模式。</translation>
    </message>
    <message>
        <source>Pattern expression: primitives such as band(r), sink(s), global(g, ...) combined with | &amp; ! ( )</source>
        <translation>模式表达式：用 | &amp; ! ( ) 组合 band(r)、sink(s)、global(g, ...) 等基本模式</translation>
    </message>
    <message>
        <source>Sparse Transformer (fixed)</source>
        <translation>Sparse Transformer (固定)</translation>
    </message>
    <message>
        <source>Blocks of l positions; the last c columns of each block summarise it for all later queries.</source>
        <translation>每块 l 个位置；每块最后 c 列为其后所有查询汇总该块。</translation>
    </message>
    <message>
        <source>Block length l</source>
        <translation>块长度 l</translation>
    </message>
    <message>
        <source>Summary columns c at the end of each block</source>
        <translation>每块末尾的汇总列数 c</translation>
    </message>
    <message>
        <source>Full softmax</source>
        <translation>完整 softmax</translation>
    </message>
    <message>
        <source>Dense</source>
        <translation>稠密</translation>
    </message>
    <message>
        <source>Standard scaled dot-product attention over every pair: O(n²·d).</source>
        <translation>对所有位置对计算的标准缩放点积注意力：O(n²·d)。</translation>
    </message>
    <message>
        <source>dense: one row of scores at a time; tiled: online softmax over blocks</source>
        <translation>dense：每次计算一行分数；tiled：分块在线 softmax</translation>
    </message>
    <message>
        <source>Linear attention</source>
        <translation>线性注意力</translation>
    </message>
    <message>
        <source>Linear kernels</source>
        <translation>线性核方法</translation>
    </message>
    <message>
        <source>Softmax replaced by a kernel so that Q(KᵀV) costs O(n·d²): elu+1, efficient (Shen et al.) or 1+cos.</source>
        <translation>用核函数替代 softmax，使 Q(KᵀV) 的时间复杂度为 O(n·d²)：elu+1、efficient (Shen 等) 或 1+cos。</translation>
    </message>
    <message>
        <source>elu: φ=elu+1; efficient: softmax over features; taylor: 1+cos</source>
        <translation>elu：φ=elu+1；efficient：在特征维上做 softmax；taylor：1+cos</translation>
    </message>
    <message>
        <source>Linformer</source>
        <translation>Linformer</translation>
    </message>
    <message>
        <source>Low rank</source>
        <translation>低秩</translation>
    </message>
    <message>
        <source>Keys and values projected along the sequence to k rows: softmax(Q(EK)ᵀ/√d)(FV) in O(n·k·d).</source>
        <translation>键和值沿序列维投影到 k 行：softmax(Q(EK)ᵀ/√d)(FV)，复杂度 O(n·k·d)。</translation>
    </message>
    <message>
        <source>Projected length k</source>
        <translation>投影长度 k</translation>
    </message>
    <message>
        <source>gaussian: E, F with N(0, 1/k) entries; pool: mean over k contiguous segments</source>
        <translation>gaussian：E、F 的元素服从 N(0, 1/k)；pool：对 k 个连续片段取平均</translation>
    </message>
    <message>
        <source>Longformer</source>
        <translation>Longformer</translation>
    </message>
    <message>
        <source>Sliding window of w positions (optionally dilated by δ) plus global tokens that see and are seen by all.</source>
        <translation>w 个位置的滑动窗口 (可按 δ 空洞) 加上与所有位置互相可见的全局令牌。</translation>
    </message>
    <message>
        <source>Dilation δ: gap between attended positions in the window</source>
        <translation>空洞率 δ：窗口内相邻被关注位置的间隔</translation>
    </message>
    <message>
        <source>Comma list of global token indices in [0, n)</source>
        <translation>全局令牌下标的逗号分隔列表，取值于 [0, n)</translation>
    </message>
    <message>
        <source>Reformer LSH</source>
        <translation>Reformer LSH</translation>
    </message>
    <message>
        <source>Data-dependent</source>
        <translation>数据相关</translation>
    </message>
    <message>
        <source>Queries attend to keys hashed into the same bucket by random rotations (angular LSH).</source>
        <translation>查询只关注经随机旋转哈希到同一桶中的键 (角度 LSH)。</translation>
    </message>
    <message>
        <source>Number of hash buckets b (even)</source>
        <translation>哈希桶数 b (偶数)</translation>
    </message>
    <message>
        <source>Hashing rounds; a pair is allowed if it collides in any round</source>
        <translation>哈希轮数；任一轮中碰撞的位置对即被允许</translation>
    </message>
    <message>
        <source>Keys are the normalised queries (K is ignored)</source>
        <translation>键取归一化后的查询 (忽略 K)</translation>
    </message>
    <message>
        <source>FLASH mixed chunk</source>
        <translation>FLASH 混合分块</translation>
    </message>
    <message>
        <source>FLASH</source>
        <translation>FLASH</translation>
    </message>
    <message>
        <source>relu² attention inside chunks of c plus linear attention across chunks: O(n·c·d + n·d²).</source>
        <translation>块长 c 的块内 relu² 注意力加上跨块的线性注意力：O(n·c·d + n·d²)。</translation>
    </message>
    <message>
        <source>Performer (FAVOR+)</source>
        <translation>Performer (FAVOR+)</translation>
    </message>
    <message>
        <source>Positive random features whose dot products approximate softmax attention in O(n·m·d).</source>
        <translation>用正随机特征的点积近似 softmax 注意力，复杂度 O(n·m·d)。</translation>
    </message>
    <message>
        <source>Number of random features m</source>
        <translation>随机特征数 m</translation>
    </message>
    <message>
        <source>Draw the features in orthogonal blocks</source>
        <translation>按正交块抽取随机特征</translation>
    </message>
    <message>
        <source>FLASH-Quad (GAU relu²)</source>
        <translation>FLASH-Quad (GAU relu²)</translation>
    </message>
    <message>
        <source>Gated attention unit scores: relu(q·k)² / Z instead of softmax, still O(n²·d).</source>
        <translation>门控注意力单元 (GAU) 的分数：用 relu(q·k)² / Z 代替 softmax，复杂度仍为 O(n²·d)。</translation>
    </message>
    <message>
        <source>Normaliser Z: ns = n·d, n2 = n²</source>
        <translation>归一化因子 Z：ns = n·d，n2 = n²</translation>
    </message>
    <message>
        <source>Sparse Transformer (strided)</source>
        <translation>Sparse Transformer (跨步)</translation>
    </message>
    <message>
        <source>Local band of width l plus every l-th earlier position: O(n·√n·d) at l = √n.</source>
        <translation>宽度为 l 的局部带加上之前每隔 l 个的位置：l = √n 时为 O(n·√n·d)。</translation>
    </message>
    <message>
        <source>Stride l: local band width and step of the strided columns</source>
        <translation>步长 l：局部带宽度及跨步列的间隔</translation>
    </message>
    <message>
        <source>Transformer-XL</source>
        <translation>Transformer-XL</translation>
    </message>
    <message>
        <source>Memory and recurrence</source>
        <translation>记忆与循环</translation>
    </message>
    <message>
        <source>Segments of S tokens that also see the previous m tokens as memory, with sinusoidal relative positions.</source>
        <translation>每段 S 个令牌，并把之前的 m 个令牌作为记忆一并关注，使用正弦相对位置编码。</translation>
    </message>
    <message>
        <source>Segment length S</source>
        <translation>段长 S</translation>
    </message>
    <message>
        <source>Memory length m: earlier tokens each segment also sees</source>
        <translation>记忆长度 m：每段额外可见的之前令牌数</translation>
    </message>
    <message>
        <source>Relative position term added to the scores</source>
        <translation>加到分数上的相对位置项</translation>
    </message>
    <message>
        <source>Seed of the random draws; the same seed gives the same numbers</source>
        <translation>随机抽样的种子；相同种子得到相同结果</translation>
    </message>
    <message>
        <source>strided: all pairs in 2 layers (Child et al. 2019: ≤ p + 1 hops, p = 2)</source>
        <translation>strided：2 层内全部可达 (Child et al. 2019：≤ p + 1 跳，p = 2)</translation>
    </message>
    <message>
        <source>longformer: all pairs in 2 layers via a global token (Beltagy et al. 2020)</source>
        <translation>longformer：经全局令牌 2 层内全部可达 (Beltagy et al. 2020)</translation>
    </message>
    <message>
        <source>bigbird: all pairs in 2 layers via a global token (Zaheer et al. 2020)</source>
        <translation>bigbird：经全局令牌 2 层内全部可达 (Zaheer et al. 2020)</translation>
    </message>
    <message>
        <source>linear</source>
        <translation>linear</translation>
    </message>
    <message>
        <source>tiled</source>
        <translation>tiled</translation>
    </message>
    <message>
        <source>dense|tiled</source>
        <translation>dense|tiled</translation>
    </message>
    <message>
        <source>ceil(sqrt(n))</source>
        <translation>ceil(sqrt(n))</translation>
    </message>
    <message>
        <source>&gt;= 1</source>
        <translation>&gt;= 1</translation>
    </message>
    <message>
        <source>max(1, floor(block/8))</source>
        <translation>max(1, floor(block/8))</translation>
    </message>
    <message>
        <source>1 &lt;= c &lt;= block</source>
        <translation>1 &lt;= c &lt;= block</translation>
    </message>
    <message>
        <source>2*ceil(sqrt(n))</source>
        <translation>2*ceil(sqrt(n))</translation>
    </message>
    <message>
        <source>&gt;= 0</source>
        <translation>&gt;= 0</translation>
    </message>
    <message>
        <source>1</source>
        <translation>1</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>indices in [0, n)</source>
        <translation>下标取值于 [0, n)</translation>
    </message>
    <message>
        <source>min(n, 64)</source>
        <translation>min(n, 64)</translation>
    </message>
    <message>
        <source>segment</source>
        <translation>segment</translation>
    </message>
    <message>
        <source>sinusoid</source>
        <translation>sinusoid</translation>
    </message>
    <message>
        <source>none|sinusoid</source>
        <translation>none|sinusoid</translation>
    </message>
    <message>
        <source>elu</source>
        <translation>elu</translation>
    </message>
    <message>
        <source>elu|efficient|taylor</source>
        <translation>elu|efficient|taylor</translation>
    </message>
    <message>
        <source>4*d</source>
        <translation>4*d</translation>
    </message>
    <message>
        <source>0</source>
        <translation>0</translation>
    </message>
    <message>
        <source>true</source>
        <translation>true</translation>
    </message>
    <message>
        <source>true|false</source>
        <translation>true|false</translation>
    </message>
    <message>
        <source>&gt;= 1 (pool: k &lt;= n)</source>
        <translation>&gt;= 1 (pool 时 k &lt;= n)</translation>
    </message>
    <message>
        <source>gaussian</source>
        <translation>gaussian</translation>
    </message>
    <message>
        <source>gaussian|pool</source>
        <translation>gaussian|pool</translation>
    </message>
    <message>
        <source>max(2, 2*floor(n/64))</source>
        <translation>max(2, 2*floor(n/64))</translation>
    </message>
    <message>
        <source>&gt;= 2, even</source>
        <translation>&gt;= 2，偶数</translation>
    </message>
    <message>
        <source>ns</source>
        <translation>ns</translation>
    </message>
    <message>
        <source>ns|n2</source>
        <translation>ns|n2</translation>
    </message>
    <message>
        <source>6</source>
        <translation>6</translation>
    </message>
    <message>
        <source>2</source>
        <translation>2</translation>
    </message>
    <message>
        <source>3</source>
        <translation>3</translation>
    </message>
    <message>
        <source>band(8) | global(0)</source>
        <translation>band(8) | global(0)</translation>
    </message>
    <message>
        <source>an expression of at most 1000 characters, parentheses nested at most 64 deep</source>
        <translation>不超过 1000 个字符的表达式，括号嵌套不超过 64 层</translation>
    </message>
    <message>
        <source>performer (FAVOR+)</source>
        <translation>performer (FAVOR+)</translation>
    </message>
    <message>
        <source>random features m</source>
        <translation>随机特征数 m</translation>
    </message>
    <message>
        <source>FAVOR+ estimates exp(q·k/√d) by random features whose variance grows exponentially with (‖q‖² + ‖k‖²)/√d: close for small logits, far off for large ones whatever m</source>
        <translation>FAVOR+ 用随机特征估计 exp(q·k/√d)，其方差随 (‖q‖² + ‖k‖²)/√d 指数增长：logits 小时接近，logits 大时无论 m 多大都偏差很远</translation>
    </message>
    <message>
        <source>linformer, untrained Gaussian E, F</source>
        <translation>linformer，未训练的高斯 E、F</translation>
    </message>
    <message>
        <source>projected length k</source>
        <translation>投影长度 k</translation>
    </message>
    <message>
        <source>untrained Gaussian E, F: random mixtures of all keys, not the learned projections of the paper, so no k &lt; n keeps softmax&apos;s few large weights</source>
        <translation>未训练的高斯 E、F：所有键的随机混合，而非论文中学到的投影，因此任何 k &lt; n 都保不住 softmax 的少数大权重</translation>
    </message>
    <message>
        <source>linformer, mean pooling E = F</source>
        <translation>linformer，均值池化 E = F</translation>
    </message>
    <message>
        <source>pooling averages k blocks of neighbouring keys: exact at k = n</source>
        <translation>池化把相邻的键分成 k 块取平均：k = n 时精确</translation>
    </message>
    <message>
        <source>lsh (shared_qk=false)</source>
        <translation>lsh (shared_qk=false)</translation>
    </message>
    <message>
        <source>hashing rounds</source>
        <translation>哈希轮数</translation>
    </message>
    <message>
        <source>LSH keeps only the keys hashed into the query&apos;s bucket: where softmax is flat (small logits) the dropped keys hold most of the weight, and with separate Q and K the key with the largest q·k need not share the query&apos;s bucket; more rounds keep more keys</source>
        <translation>LSH 只保留哈希到查询所在桶中的键：softmax 平坦时 (logits 小)，被丢弃的键占了大部分权重；而 Q 与 K 分开时，q·k 最大的键未必与查询同桶；轮数越多，保留的键越多</translation>
    </message>
    <message>
        <source>window + 4 sinks</source>
        <translation>窗口 + 4 个汇聚令牌</translation>
    </message>
</context>
<context>
    <name>GridText</name>
    <message>
        <source>raster order</source>
        <translation>光栅顺序</translation>
    </message>
    <message>
        <source>Morton order</source>
        <translation>Z 序（Morton）</translation>
    </message>
    <message>
        <source>tiles %1 order</source>
        <translation>分片 %1 顺序</translation>
    </message>
    <message>
        <source>%1 video, %2</source>
        <translation>%1 视频，%2</translation>
    </message>
    <message>
        <source>%1 image, %2</source>
        <translation>%1 图像，%2</translation>
    </message>
</context>
<context>
    <name>ModelPresets</name>
    <message>
        <source>%1 KV heads</source>
        <translation>%1 个键/值头</translation>
    </message>
    <message>
        <source>%1 layers</source>
        <translation>%1 层</translation>
    </message>
    <message>
        <source>window %1</source>
        <translation>窗口 %1</translation>
    </message>
    <message>
        <source>%1 cache</source>
        <translation>%1 缓存</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>Sparse Transformer (Child et al., 2019): strided and fixed heads on an 8×8 image</source>
        <translation>Sparse Transformer（Child 等，2019）：8×8 图像上的跨步与固定注意力头</translation>
    </message>
    <message>
        <source>Sparse Transformer (Child et al., 2019): two strided layers reach every earlier pixel</source>
        <translation>Sparse Transformer（Child 等，2019）：两层跨步注意力覆盖之前的每个像素</translation>
    </message>
    <message>
        <source>NATTEN (Hassani et al., 2022–2023): neighbourhood vs dilated neighbourhood at the edge</source>
        <translation>NATTEN（Hassani 等，2022–2023）：边缘处的邻域与空洞邻域</translation>
    </message>
    <message>
        <source>Swin Transformer (Liu et al., 2021): window vs shifted window</source>
        <translation>Swin Transformer（Liu 等，2021）：窗口与移位窗口</translation>
    </message>
    <message>
        <source>Axial attention (Ho et al., 2019): row and column heads</source>
        <translation>轴向注意力（Ho 等，2019）：行头与列头</translation>
    </message>
    <message>
        <source>Sliding tile attention (Zhang et al., 2025) vs neighbourhood, raster order, blocks of 16</source>
        <translation>滑动分片注意力（Zhang 等，2025）与邻域对比：光栅顺序，16 分块</translation>
    </message>
    <message>
        <source>Sliding tile attention (Zhang et al., 2025) vs neighbourhood, tile order, blocks of 16</source>
        <translation>滑动分片注意力（Zhang 等，2025）与邻域对比：分片顺序，16 分块</translation>
    </message>
    <message>
        <source>BigBird (Zaheer et al., 2020) per token vs in blocks of 64, block view on</source>
        <translation>BigBird（Zaheer et al., 2020）：按词元与按 64 分块对比（显示分块）</translation>
    </message>
    <message>
        <source>Longformer (Beltagy et al., 2020): full / sliding / dilated / global</source>
        <translation>Longformer（Beltagy et al., 2020）：完整 / 滑动窗口 / 空洞 / 全局</translation>
    </message>
    <message>
        <source>BigBird (Zaheer et al., 2020): random / sliding window / global / combined</source>
        <translation>BigBird（Zaheer et al., 2020）：随机 / 滑动窗口 / 全局 / 组合</translation>
    </message>
    <message>
        <source>FLASH (Hua et al., 2022): quad / linear / mixed chunk</source>
        <translation>FLASH（Hua et al., 2022）：二次 / 线性 / 混合分块</translation>
    </message>
    <message>
        <source>Transformer-XL (Dai et al., 2019): segments with memory</source>
        <translation>Transformer-XL（Dai et al., 2019）：带记忆的分段</translation>
    </message>
    <message>
        <source>BERT-base (Devlin et al., 2019) layer FLOP breakdown</source>
        <translation>BERT-base（Devlin et al., 2019）单层计算量分解</translation>
    </message>
    <message>
        <source>Sparse Transformer (Child et al., 2019): full / strided / fixed</source>
        <translation>Sparse Transformer（Child et al., 2019）：完整 / 跨步 / 固定</translation>
    </message>
    <message>
        <source>StreamingLLM (Xiao et al., 2023): sliding window + attention sinks</source>
        <translation>StreamingLLM（Xiao et al., 2023）：滑动窗口 + 注意力汇聚令牌</translation>
    </message>
    <message>
        <source>Prefix-LM: bidirectional prefix, causal continuation</source>
        <translation>Prefix-LM：双向前缀，因果续写</translation>
    </message>
    <message>
        <source>Document masking: packed sequences</source>
        <translation>文档掩码：打包序列</translation>
    </message>
    <message>
        <source>Longformer (Beltagy et al., 2020): dilated window + global tokens</source>
        <translation>Longformer（Beltagy et al., 2020）：空洞窗口 + 全局令牌</translation>
    </message>
    <message>
        <source>BigBird (Zaheer et al., 2020) coloured by random / window / global</source>
        <translation>BigBird（Zaheer et al., 2020）按随机 / 窗口 / 全局着色</translation>
    </message>
    <message>
        <source>Sparse Transformer (Child et al., 2019) factorised: A(1) band, A(2) strided columns</source>
        <translation>Sparse Transformer（Child et al., 2019）分解：A(1) 局部带，A(2) 跨步列</translation>
    </message>
    <message>
        <source>One 15×15 neighbourhood in raster, tile and Morton order: the blocks a kernel computes</source>
        <translation>同一个 15×15 邻域在光栅、分片与 Z 序下：块内核计算哪些块</translation>
    </message>
</context>
<context>
    <name>PatternView</name>
    <message>
        <source>sliding window</source>
        <translation>滑动窗口</translation>
    </message>
    <message>
        <source>dilated sliding window</source>
        <translation>扩张滑动窗口</translation>
    </message>
    <message>
        <source>self</source>
        <translation>自身</translation>
    </message>
    <message>
        <source>global</source>
        <translation>全局</translation>
    </message>
    <message>
        <source>random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>diagonal added to an empty row</source>
        <translation>已为空行补上对角元</translation>
    </message>
    <message>
        <source>component %1</source>
        <translation>组成部分 %1</translation>
    </message>
    <message>
        <source>A(%1): %2</source>
        <translation>A(%1)：%2</translation>
    </message>
</context>
<context>
    <name>ViewInputs</name>
    <message>
        <source>%1 is bidirectional only: it has no causal form, so it is not drawn for causal attention</source>
        <translation>%1 仅支持双向注意力：没有因果形式，因此因果注意力下不绘制</translation>
    </message>
    <message>
        <source>%1 is causal only: it has no bidirectional form, so it is not drawn without causal</source>
        <translation>%1 仅支持因果注意力：没有双向形式，因此非因果时不绘制</translation>
    </message>
</context>
<context>
    <name>Animation</name>
    <message>
        <source>measured up to n = %1</source>
        <translation>已测量至 n = %1</translation>
    </message>
    <message>
        <source>h = %1 heads</source>
        <translation>h = %1 个头</translation>
    </message>
    <message>
        <source>h_kv = %1 key/value heads</source>
        <translation>h_kv = %1 个键/值头</translation>
    </message>
    <message>
        <source>layers L = %1</source>
        <translation>层数 L = %1</translation>
    </message>
    <message>
        <source>model layers L = %1</source>
        <translation>模型层数 L = %1</translation>
    </message>
    <message>
        <source>input scale s = %1</source>
        <translation>输入缩放 s = %1</translation>
    </message>
    <message>
        <source>query row i = %1</source>
        <translation>查询行 i = %1</translation>
    </message>
    <message>
        <source>query cell at position %1</source>
        <translation>位置 %1 处的查询单元</translation>
    </message>
    <message>
        <source>decoding step: the new token at position t = %1</source>
        <translation>解码步：新令牌位于位置 t = %1</translation>
    </message>
</context>
<context>
    <name>attnlab::AnimationDialog</name>
    <message>
        <source>Export animation</source>
        <translation>导出动画</translation>
    </message>
    <message>
        <source> frames/s</source>
        <translation> 帧/秒</translation>
    </message>
    <message>
        <source> s</source>
        <translation> 秒</translation>
    </message>
    <message>
        <source>each frame fits its own axes and colour scales</source>
        <translation>每帧使用各自的坐标轴与色标</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>扫描参数</translation>
    </message>
    <message>
        <source>Range</source>
        <translation>范围</translation>
    </message>
    <message>
        <source>Frame rate</source>
        <translation>帧率</translation>
    </message>
    <message>
        <source>Hold the last frame</source>
        <translation>末帧停留</translation>
    </message>
    <message>
        <source>Free axes</source>
        <translation>自由坐标轴</translation>
    </message>
    <message>
        <source>File (.gif, .mp4, .tex)</source>
        <translation>文件 (.gif, .mp4, .tex)</translation>
    </message>
    <message>
        <source>(preview)</source>
        <translation>(预览)</translation>
    </message>
    <message>
        <source>Preview first and last</source>
        <translation>预览首帧与末帧</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Cancel export</source>
        <translation>取消导出</translation>
    </message>
    <message>
        <source>the %1 view over %2 = %3</source>
        <translation>%1 视图，%2 = %3</translation>
    </message>
    <message>
        <source>%1 frames</source>
        <translation>%1 帧</translation>
    </message>
    <message>
        <source>GIF animation (*.gif);;MP4 video, H.264 (*.mp4);;Beamer frames (*.tex)</source>
        <translation>GIF 动画 (*.gif);;MP4 视频，H.264 (*.mp4);;Beamer 帧 (*.tex)</translation>
    </message>
    <message>
        <source>exported %1</source>
        <translation>已导出 %1</translation>
    </message>
    <message>
        <source>rendering the frames…</source>
        <translation>正在渲染各帧…</translation>
    </message>
    <message>
        <source>rendering the first and last frame…</source>
        <translation>正在渲染首帧与末帧…</translation>
    </message>
    <message>
        <source>cancelled: no file written</source>
        <translation>已取消：未写入文件</translation>
    </message>
    <message>
        <source>Export &amp;animation…</source>
        <translation>导出动画(&amp;A)…</translation>
    </message>
</context>
<context>
    <name>attnlab::AnimationRenderer</name>
    <message>
        <source>animation</source>
        <translation>动画</translation>
    </message>
    <message>
        <source>: the %1 view could not be computed: %2</source>
        <translation>：无法计算 %1 视图：%2</translation>
    </message>
    <message>
        <source>: the %1 view did not finish within %2 s</source>
        <translation>：%1 视图未在 %2 秒内完成</translation>
    </message>
    <message>
        <source>cannot write '%1': the frames are too large an image (lower the dpi or the size)</source>
        <translation>无法写入“%1”：帧图像过大 (请降低 dpi 或尺寸)</translation>
    </message>
</context>
<context>
    <name>attnlab::AccuracyView</name>
    <message>
        <source>Computing exact attention and the approximations…</source>
        <translation>正在计算精确注意力与各近似方法…</translation>
    </message>
    <message>
        <source>error 1 = an all-zero output</source>
        <translation>误差 1 = 全零输出</translation>
    </message>
    <message>
        <source>%1 %2 = %3: error %4 is float32 rounding (exact method), not plotted</source>
        <translation>%1 %2 = %3：误差 %4 为 float32 舍入误差 (精确方法)，未绘出</translation>
    </message>
    <message>
        <source>accuracy</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>%1: %2 = %3 left out (%4 &gt; n = %5)</source>
        <translation>%1：%2 = %3 未计入 (%4 &gt; n = %5)</translation>
    </message>
    <message>
        <source>%1 is bidirectional only: left out for causal attention</source>
        <translation>%1 仅支持双向注意力：因果注意力下未计入</translation>
    </message>
    <message>
        <source>%1 %2 = %3 left out: %4</source>
        <translation>%1 %2 = %3 未计入：%4</translation>
    </message>
    <message>
        <source>Where the approximations of softmax attention work, and where they break</source>
        <translation>softmax 注意力的各近似方法何时有效、何时失效</translation>
    </message>
    <message>
        <source>effective-weights error ‖W − W_full‖_F / ‖W_full‖_F (out = W·V per head)</source>
        <translation>有效权重误差 ‖W − W_full‖_F / ‖W_full‖_F (每个头 out = W·V)</translation>
    </message>
    <message>
        <source>output error ‖out − out_full‖_F / ‖out_full‖_F</source>
        <translation>输出误差 ‖out − out_full‖_F / ‖out_full‖_F</translation>
    </message>
    <message>
        <source>Q, K × s = %1 (logits q·k/√d × %2); relative %3 over all %4 head(s), same Q, K, V; other parameters at their defaults; random methods: mean of %5 seeds, bars min–max</source>
        <translation>Q、K × s = %1 (logits q·k/√d × %2)；全部 %4 个头上的相对%3，Q、K、V 相同；其他参数取默认值；随机方法：%5 个种子的均值，误差条为最小–最大值</translation>
    </message>
    <message>
        <source>relative error of the weights W</source>
        <translation>权重 W 的相对误差</translation>
    </message>
    <message>
        <source>relative error of the output</source>
        <translation>输出的相对误差</translation>
    </message>
    <message>
        <source>%1 at s = %2</source>
        <translation>%1（s = %2）</translation>
    </message>
    <message>
        <source>%1 is bidirectional only: not measured for causal attention</source>
        <translation>%1 仅支持双向注意力：因果注意力下不测量</translation>
    </message>
    <message>
        <source>no value of this sweep fits the inputs (see the notes)</source>
        <translation>本次扫描没有适用于当前输入的取值 (见注释)</translation>
    </message>
    <message>
        <source>input scale s (Q, K × s)</source>
        <translation>输入缩放 s (Q、K × s)</translation>
    </message>
    <message>
        <source>Error vs input scale at a fixed budget</source>
        <translation>固定预算下误差随输入缩放的变化</translation>
    </message>
    <message>
        <source>relative error</source>
        <translation>相对误差</translation>
    </message>
    <message>
        <source>s of the budget panels</source>
        <translation>预算面板所用的 s</translation>
    </message>
    <message>
        <source>%1, %2 = %3: %4</source>
        <translation>%1，%2 = %3：%4</translation>
    </message>
    <message>
        <source>Error: %1. Exact softmax (full) is the reference (error 0).</source>
        <translation>误差：%1。以精确 softmax (full) 为基准 (误差 0)。</translation>
    </message>
    <message>
        <source>%1 %2 = %3: the output is not finite (the kernel overflowed at this input scale), not plotted</source>
        <translation>%1 %2 = %3：输出非有限值 (该输入缩放下核函数溢出)，未绘出</translation>
    </message>
</context>
<context>
    <name>attnlab::ExpressionComposer</name>
    <message>
        <source>e.g. band(8) | sink(4)</source>
        <translation>例如 band(8) | sink(4)</translation>
    </message>
    <message>
        <source>A pattern expression: | union, &amp; intersection, ! complement, parentheses; checked as you type</source>
        <translation>模式表达式：| 并集，&amp; 交集，! 补集，可用括号；输入时即时检查</translation>
    </message>
    <message>
        <source>Insert the operator %1</source>
        <translation>插入运算符 %1</translation>
    </message>
    <message>
        <source>Insert %1 at the cursor</source>
        <translation>在光标处插入 %1</translation>
    </message>
    <message>
        <source>%1 — not applied: the figures show the last valid expression, %2</source>
        <translation>%1 — 未应用：图中显示的是上一个有效表达式 %2</translation>
    </message>
    <message>
        <source>%1 — nothing is drawn until the expression is valid</source>
        <translation>%1 — 表达式有效之前不绘制任何图形</translation>
    </message>
</context>
<context>
    <name>attnlab::FigureView</name>
    <message>
        <source>   grid=%1</source>
        <translation>   网格=%1</translation>
    </message>
    <message>
        <source>%1 × %2 pixels is too large an image (lower the dpi or the size)</source>
        <translation>%1 × %2 像素的图像过大 (请降低 dpi 或尺寸)</translation>
    </message>
    <message>
        <source>PNG encoding failed</source>
        <translation>PNG 编码失败</translation>
    </message>
    <message>
        <source>Gaussian, seed %1</source>
        <translation>高斯随机，种子 %1</translation>
    </message>
    <message>
        <source>local similarity, seed %1</source>
        <translation>局部相似，种子 %1</translation>
    </message>
    <message>
        <source>NPY %1</source>
        <translation>NPY 文件 %1</translation>
    </message>
    <message>
        <source>%1=%2   n=%3   d=%4   h=%5   causal=%6   input=%7</source>
        <translation>%1=%2   n=%3   d=%4   h=%5   因果=%6   输入=%7</translation>
    </message>
    <message>
        <source>variants</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>%1: cancelled</source>
        <translation>%1：已取消</translation>
    </message>
    <message>
        <source>cancelled: the figure shows the last finished result (View → Recompute, F5)</source>
        <translation>已取消：图中为上一次完成的结果 (视图 → 重新计算，F5)</translation>
    </message>
    <message>
        <source>error: %1</source>
        <translation>错误：%1</translation>
    </message>
    <message>
        <source>shape from the NPY files: h=%1, n=%2, d=%3</source>
        <translation>形状取自 NPY 文件：h=%1，n=%2，d=%3</translation>
    </message>
    <message>
        <source>%1 in the orders %2</source>
        <translation>%1，顺序 %2</translation>
    </message>
    <message>
        <source> in %1 order</source>
        <translation>（%1 顺序）</translation>
    </message>
</context>
<context>
    <name>attnlab::FlopsView</name>
    <message>
        <source>U, V projections 2n(hd)e</source>
        <translation>U、V 投影 2n(hd)e</translation>
    </message>
    <message>
        <source>Z projection n(hd)s</source>
        <translation>Z 投影 n(hd)s</translation>
    </message>
    <message>
        <source>scores nnz·s</source>
        <translation>注意力分数 nnz·s</translation>
    </message>
    <message>
        <source>weights × V nnz·e</source>
        <translation>权重 × V nnz·e</translation>
    </message>
    <message>
        <source>output projection n·e(hd)</source>
        <translation>输出投影 n·e(hd)</translation>
    </message>
    <message>
        <source>linear state 2n·s·e</source>
        <translation>线性状态 2n·s·e</translation>
    </message>
    <message>
        <source>Where one GAU layer&apos;s %1 go (FLASH): %2, hd=%3, e=2hd, s=128</source>
        <translation>一个 GAU 层的 %1 去向 (FLASH)：%2，hd=%3，e=2hd，s=128</translation>
    </message>
    <message>
        <source>   |   convention: 1 MAC = one multiply-add (an a×b by b×c product is a·b·c MACs); FLOPs = 2 × MACs. FLASH&apos;s GAU layer: expansion e = 2hd, one head of size s = 128, no FFN; its gates and offsets are element-wise and not counted. Shown in %1.</source>
        <translation>   |   约定：1 MAC = 一次乘加 (a×b 与 b×c 矩阵相乘为 a·b·c 次 MAC)；FLOPs = 2 × MACs。FLASH 的 GAU 层：扩展宽度 e = 2hd，单头，头维度 s = 128，无 FFN；门控与偏移是逐元素运算，不计入。单位：%1。</translation>
    </message>
    <message>
        <source>two GAU layers ÷ one layer of full attention + FFN 4hd</source>
        <translation>两个 GAU 层 ÷ 一个完整注意力 + FFN 4hd 层</translation>
    </message>
    <message>
        <source>ratio</source>
        <translation>比值</translation>
    </message>
    <message>
        <source>share of the layer (%)</source>
        <translation>占本层比例 (%)</translation>
    </message>
    <message>
        <source>equal cost</source>
        <translation>代价相等</translation>
    </message>
    <message>
        <source>FLASH&apos;s trade: two GAU layers in place of one attention + FFN layer</source>
        <translation>FLASH 的取舍：以两个 GAU 层替代一个注意力 + FFN 层</translation>
    </message>
    <message>
        <source>%1, on a %2</source>
        <translation>%1，在 %2 上</translation>
    </message>
    <message>
        <source>QKV projections 3n(hd)²</source>
        <translation>QKV 投影 3n(hd)²</translation>
    </message>
    <message>
        <source>scores QKᵀ</source>
        <translation>注意力分数 QKᵀ</translation>
    </message>
    <message>
        <source>weights × V</source>
        <translation>权重 × V</translation>
    </message>
    <message>
        <source>output projection n(hd)²</source>
        <translation>输出投影 n(hd)²</translation>
    </message>
    <message>
        <source>FFN 8n(hd)²</source>
        <translation>FFN 8n(hd)²</translation>
    </message>
    <message>
        <source>feature map</source>
        <translation>特征映射</translation>
    </message>
    <message>
        <source>linear state</source>
        <translation>线性状态</translation>
    </message>
    <message>
        <source>low-rank projection</source>
        <translation>低秩投影</translation>
    </message>
    <message>
        <source>relative position q·R</source>
        <translation>相对位置 q·R</translation>
    </message>
    <message>
        <source>LSH hashing</source>
        <translation>LSH 哈希</translation>
    </message>
    <message>
        <source>Where one layer&apos;s %1 go: %2, h=%3, d=%4 (hd=%5)</source>
        <translation>单层%1的去向：%2，h=%3，d=%4 (hd=%5)</translation>
    </message>
    <message>
        <source>MACs</source>
        <translation>乘加次数 (MACs)</translation>
    </message>
    <message>
        <source>FLOPs</source>
        <translation>浮点运算 (FLOPs)</translation>
    </message>
    <message>
        <source>   |   convention: 1 MAC = one multiply-add (an a×b by b×c product is a·b·c MACs); FLOPs = 2 × MACs; softmax exponentials are counted apart, not as MACs. Model width hd, FFN width 4hd. Shown in %1.</source>
        <translation>   |   约定：1 MAC = 一次乘加 (a×b 与 b×c 矩阵相乘为 a·b·c 次 MAC)；FLOPs = 2 × MACs；softmax 的指数运算单独计数，不计入 MACs。模型宽度 hd，FFN 宽度 4hd。单位：%1。</translation>
    </message>
    <message>
        <source>sequence length n</source>
        <translation>序列长度 n</translation>
    </message>
    <message>
        <source>share of the layer&apos;s %1 (%)</source>
        <translation>占本层%1的比例 (%)</translation>
    </message>
    <message>
        <source>softmax: %1 exps at n=%2 (not %3)</source>
        <translation>softmax：n=%2 时 %1 次指数运算 (不计入 %3)</translation>
    </message>
    <message>
        <source>feature map φ: %1 exps at n=%2 (not %3)</source>
        <translation>特征映射 φ：n=%2 时 %1 次指数运算 (不计入 %3)</translation>
    </message>
    <message>
        <source>no exponentials at n=%1</source>
        <translation>n=%1 时无指数运算</translation>
    </message>
    <message>
        <source>Layer terms stacked (share of the whole layer)</source>
        <translation>各层内项堆叠 (占整层比例)</translation>
    </message>
    <message>
        <source>no valid n for these parameters</source>
        <translation>这些参数下没有有效的 n</translation>
    </message>
    <message>
        <source>current n = %1</source>
        <translation>当前 n = %1</translation>
    </message>
    <message>
        <source>attention &gt; FFN</source>
        <translation>注意力 &gt; FFN</translation>
    </message>
    <message>
        <source>attention core dominates</source>
        <translation>注意力核心占主导</translation>
    </message>
    <message>
        <source>core %1, log scale</source>
        <translation>核心%1（对数坐标）</translation>
    </message>
    <message>
        <source>each bar in its variant&apos;s colour; the chosen variants with their parameters, the others with their defaults</source>
        <translation>每个条形使用其变体的颜色；所选变体使用其参数，其余使用默认参数</translation>
    </message>
    <message>
        <source>chosen (its parameters)</source>
        <translation>所选变体 (其参数)</translation>
    </message>
    <message>
        <source>others (defaults)</source>
        <translation>其他变体 (默认参数)</translation>
    </message>
    <message>
        <source>Attention cores at n = %1</source>
        <translation>n = %1 时的注意力核心</translation>
    </message>
    <message>
        <source>FLOP counts</source>
        <translation>计算量统计</translation>
    </message>
    <message>
        <source>image cells n = H·W (the grid scaled, aspect and order kept)</source>
        <translation>图像单元数 n = H·W（网格按比例缩放，保持宽高比与顺序）</translation>
    </message>
    <message>
        <source>hatched: a block kernel&apos;s cost, B=%1</source>
        <translation>斜线：块内核的计算量，B=%1</translation>
    </message>
    <message>
        <source>block ×r: computed ÷ allowed cells (all of each non-empty block)</source>
        <translation>块 ×r：计算单元 ÷ 允许单元（每个非空块全部计算）</translation>
    </message>
    <message>
        <source>block ×%1</source>
        <translation>块 ×%1</translation>
    </message>
    <message>
        <source>%1 (order %2)</source>
        <translation>%1（顺序 %2）</translation>
    </message>
</context>
<context>
    <name>attnlab::ImGuiLabWidget</name>
    <message>
        <source>edit as expression</source>
        <translation>以表达式编辑</translation>
    </message>
    <message>
        <source>switch to the custom variant with an expression giving exactly this pattern</source>
        <translation>切换到 custom 变体，用一个给出完全相同模式的表达式</translation>
    </message>
    <message>
        <source>| union, &amp; intersection, ! complement; checked as you type</source>
        <translation>| 并集，&amp; 交集，! 补集；输入时即检查</translation>
    </message>
    <message>
        <source>computing the pattern for n = %1 …</source>
        <translation>正在计算 n = %1 的模式…</translation>
    </message>
    <message>
        <source>n = %1   nnz = %2   density %3%   %4</source>
        <translation>n = %1   非零元 = %2   密度 %3%   %4</translation>
    </message>
    <message>
        <source>no pattern: %1</source>
        <translation>无模式：%1</translation>
    </message>
    <message>
        <source>query i = %1, key j = %2: allowed   zoom ×%3</source>
        <translation>查询 i = %1，键 j = %2：允许   缩放 ×%3</translation>
    </message>
    <message>
        <source>query i = %1, key j = %2: masked   zoom ×%3</source>
        <translation>查询 i = %1，键 j = %2：屏蔽   缩放 ×%3</translation>
    </message>
    <message>
        <source>wheel zooms at the cursor, drag pans, double-click shows all   zoom ×%1</source>
        <translation>滚轮以光标为中心缩放，拖动平移，双击显示全部   缩放 ×%1</translation>
    </message>
    <message>
        <source>variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>h (heads)</source>
        <translation>h (头数)</translation>
    </message>
    <message>
        <source>shown head</source>
        <translation>显示的头</translation>
    </message>
    <message>
        <source>causal</source>
        <translation>因果</translation>
    </message>
    <message>
        <source>this variant is causal only</source>
        <translation>该变体仅支持因果注意力</translation>
    </message>
    <message>
        <source>this variant is bidirectional only</source>
        <translation>该变体仅支持双向注意力</translation>
    </message>
    <message>
        <source>%1 parameters (right-click: default)</source>
        <translation>%1 参数 (右键：恢复默认)</translation>
    </message>
    <message>
        <source>%1
default: %2
range: %3</source>
        <translation>%1
默认值：%2
范围：%3</translation>
    </message>
    <message>
        <source>inputs (the pattern depends on Q and K)</source>
        <translation>输入 (该模式取决于 Q 和 K)</translation>
    </message>
    <message>
        <source>random Gaussian</source>
        <translation>高斯随机</translation>
    </message>
    <message>
        <source>local similarity</source>
        <translation>局部相似</translation>
    </message>
    <message>
        <source>NPY files</source>
        <translation>NPY 文件</translation>
    </message>
    <message>
        <source>source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>lab pattern</source>
        <translation>实验台模式</translation>
    </message>
    <message>
        <source>lab pattern tiles</source>
        <translation>实验台模式图块</translation>
    </message>
    <message>
        <source>grid H,W</source>
        <translation>网格 H,W</translation>
    </message>
    <message>
        <source>order</source>
        <translation>顺序</translation>
    </message>
    <message>
        <source>grid query</source>
        <translation>网格查询</translation>
    </message>
    <message>
        <source>centre cell</source>
        <translation>中心单元</translation>
    </message>
    <message>
        <source>%1 cells attended</source>
        <translation>关注 %1 个单元</translation>
    </message>
    <message>
        <source>computing…</source>
        <translation>计算中…</translation>
    </message>
    <message>
        <source>query cell %1 = position %2   %3   (%4)</source>
        <translation>查询单元 %1 = 位置 %2   %3   （%4）</translation>
    </message>
    <message>
        <source>cell %1 = position %2
click: make it the query</source>
        <translation>单元 %1 = 位置 %2
单击：设为查询</translation>
    </message>
    <message>
        <source>lab grid picture</source>
        <translation>实验台网格图</translation>
    </message>
</context>
<context>
    <name>attnlab::InferenceView</name>
    <message>
        <source>float16</source>
        <translation>float16</translation>
    </message>
    <message>
        <source>decoding cache</source>
        <translation>解码缓存</translation>
    </message>
    <message>
        <source>At the new token t = %1 (context n = %2): the keys each layer keeps (coloured), evicted (grey), over positions 0 … t</source>
        <translation>在新令牌 t = %1 (上下文 n = %2)：每层保留的键 (彩色)、已逐出的键 (灰色)，位置 0 … t</translation>
    </message>
    <message>
        <source>a recurrent state, %1</source>
        <translation>循环状态，%1</translation>
    </message>
    <message>
        <source>%1 keys, %2</source>
        <translation>%1 个键，%2</translation>
    </message>
    <message>
        <source>t = %1</source>
        <translation>t = %1</translation>
    </message>
    <message>
        <source>bfloat16</source>
        <translation>bfloat16</translation>
    </message>
    <message>
        <source>float32</source>
        <translation>float32</translation>
    </message>
    <message>
        <source>Decoding, %5 cache (h=%1, h_kv=%2, d=%3, L=%4)</source>
        <translation>解码，%5 缓存 (h=%1，h_kv=%2，d=%3，L=%4)</translation>
    </message>
    <message>
        <source>   |   KV cache: what one layer must keep after a step to produce every later token exactly, in %1: retained keys × h_kv × (d + d_v) × bytes per element, plus any recurrent state in float32 (docs/inference.md). Memory budget %2. Decoding step: one query row against a cache of n − 1 tokens read from memory (the caches flushed before every run), median of timed runs on this machine; bandwidth = the cached bytes the step reads / its time, beside the STREAM triad. Chunked prefill: a prompt of n = %3 tokens through one layer&apos;s attention core in chunks of c queries, each over every key before it.</source>
        <translation> | KV 缓存：单层在一步之后为精确生成后续所有令牌而必须保留的数据，精度 %1：保留的键数 × h_kv × (d + d_v) × 每元素字节数，另加可能的循环状态 (float32)。内存预算 %2。解码步：一个查询行对 n − 1 个令牌的缓存，缓存从内存读取 (每次运行前清空各级缓存)，取本机多次计时运行的中位数；带宽 = 该步读取的缓存字节数 / 耗时，与 STREAM triad 对照。分块预填充：n = %3 个令牌的提示按每块 c 个查询通过单层注意力核心，每块对其之前的所有键。</translation>
    </message>
    <message>
        <source>KV cache, %1</source>
        <translation>KV 缓存，%1</translation>
    </message>
    <message>
        <source>CPU-starved, ringed and left out of fits (less than %1% of the cores): %2</source>
        <translation>CPU 不足的点已圈出并排除在拟合之外 (少于核心的 %1%)：%2</translation>
    </message>
    <message>
        <source>%1: %2 GB/s fitted, %3 of the triad</source>
        <translation>%1：拟合 %2 GB/s，为 triad 的 %3</translation>
    </message>
    <message>
        <source>%1: %2 GB/s fitted</source>
        <translation>%1：拟合 %2 GB/s</translation>
    </message>
    <message>
        <source>STREAM triad on %1 threads: %2 GB/s (the memory roof)</source>
        <translation>%1 个线程上的 STREAM triad：%2 GB/s (内存上限)</translation>
    </message>
    <message>
        <source>Decoding step: cache read bandwidth</source>
        <translation>解码步：缓存读取带宽</translation>
    </message>
    <message>
        <source>measuring this machine&apos;s bandwidth…</source>
        <translation>正在测量本机带宽…</translation>
    </message>
    <message>
        <source>no chunks over a cache (whole sequences only): %1</source>
        <translation>不能在缓存上分块 (只能整序列)：%1</translation>
    </message>
    <message>
        <source>chunk of queries c (tokens)</source>
        <translation>查询块大小 c (令牌)</translation>
    </message>
    <message>
        <source>Chunked prefill of n = %1 (c = n: one prefill)</source>
        <translation>n = %1 的分块预填充 (c = n：一次预填充)</translation>
    </message>
    <message>
        <source>%1: cannot decode</source>
        <translation>%1：无法解码</translation>
    </message>
    <message>
        <source>%1: out at n = %2</source>
        <translation>%1：n = %2 时超出预算</translation>
    </message>
    <message>
        <source>%1: never (≤ %2)</source>
        <translation>%1：从不超出 (≤ %2)</translation>
    </message>
    <message>
        <source>context length n (tokens)</source>
        <translation>上下文长度 n (令牌)</translation>
    </message>
    <message>
        <source>KV cache: %1 layers (solid), one layer (dotted)</source>
        <translation>KV 缓存：%1 层 (实线)，单层 (点线)</translation>
    </message>
    <message>
        <source>KV cache of one layer vs context</source>
        <translation>单层 KV 缓存随上下文长度的变化</translation>
    </message>
    <message>
        <source>computing the cache sizes…</source>
        <translation>正在计算缓存大小…</translation>
    </message>
    <message>
        <source>memory budget %1</source>
        <translation>内存预算 %1</translation>
    </message>
    <message>
        <source>memory budget %1 (this machine&apos;s RAM)</source>
        <translation>内存预算 %1 (本机内存)</translation>
    </message>
    <message>
        <source>Decoding step, measured (%1/%2)</source>
        <translation>解码步实测 (%1/%2)</translation>
    </message>
    <message>
        <source>Decoding step, measured</source>
        <translation>解码步实测</translation>
    </message>
    <message>
        <source>measuring…</source>
        <translation>正在测量…</translation>
    </message>
    <message>
        <source>no measurement</source>
        <translation>无测量</translation>
    </message>
    <message>
        <source>decoding steps</source>
        <translation>解码步</translation>
    </message>
    <message>
        <source>%1: its parameters fit no context length here</source>
        <translation>%1：其参数不适用于此处的任何上下文长度</translation>
    </message>
    <message>
        <source>%1: %2, at n = %3 only</source>
        <translation>%1：%2，仅在 n = %3 时有定义</translation>
    </message>
    <message>
        <source>%1: ≤ %2 at n = %3 … %4 only</source>
        <translation>%1：≤ %2，仅在 n = %3 … %4 时有定义</translation>
    </message>
    <message>
        <source>time per step, one layer</source>
        <translation>单层每步耗时</translation>
    </message>
    <message>
        <source>STREAM triad on one thread: %1 GB/s (the memory roof)</source>
        <translation>1 个线程上的 STREAM triad：%1 GB/s (内存上限)</translation>
    </message>
    <message>
        <source>no fitted rate (no step read more than the last-level cache): %1</source>
        <translation>无拟合速率（没有一步读取超过末级缓存的数据）：%1</translation>
    </message>
    <message>
        <source>GB/s</source>
        <translation>GB/s</translation>
    </message>
    <message>
        <source>time to first token</source>
        <translation>首个令牌耗时</translation>
    </message>
    <message>
        <source>first token</source>
        <translation>首令牌</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
</context>
<context>
    <name>attnlab::MainWindow</name>
    <message>
        <source>Pattern</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Receptive field</source>
        <translation>感受野</translation>
    </message>
    <message>
        <source>Timing</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>FLOP breakdown</source>
        <translation>计算量分解</translation>
    </message>
    <message>
        <source>Accuracy</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>ImGui lab</source>
        <translation>ImGui 实验台</translation>
    </message>
    <message>
        <source>timing %v/%m</source>
        <translation>计时 %v/%m</translation>
    </message>
    <message>
        <source>Cancel timing</source>
        <translation>取消计时</translation>
    </message>
    <message>
        <source>Measure timing again</source>
        <translation>重新计时</translation>
    </message>
    <message>
        <source>AttnLab — what attention costs</source>
        <translation>AttnLab — 注意力的代价</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>working: %1</source>
        <translation>正在进行：%1</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop the work under way (Esc); View → Recompute (F5) starts it again</source>
        <translation>停止正在进行的计算 (Esc)；“视图 → 重新计算” (F5) 可重新开始</translation>
    </message>
    <message>
        <source>The Dear ImGui live lab is unavailable: this platform (%1) has no OpenGL.
Every other view works; run on a desktop session to use the lab.</source>
        <translation>Dear ImGui 实时实验台不可用：此平台 (%1) 没有 OpenGL。
其他视图均可使用；请在桌面会话中运行以使用实验台。</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Main toolbar</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>&amp;Open session…</source>
        <translation>打开会话(&amp;O)…</translation>
    </message>
    <message>
        <source>Open session</source>
        <translation>打开会话</translation>
    </message>
    <message>
        <source>AttnLab sessions (*.attnlab.json *.json)</source>
        <translation>AttnLab 会话 (*.attnlab.json *.json)</translation>
    </message>
    <message>
        <source>&amp;Save session…</source>
        <translation>保存会话(&amp;S)…</translation>
    </message>
    <message>
        <source>Save session</source>
        <translation>保存会话</translation>
    </message>
    <message>
        <source>saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>&amp;Export figure…</source>
        <translation>导出图表(&amp;E)…</translation>
    </message>
    <message>
        <source>Export data &amp;CSV…</source>
        <translation>导出数据 CSV(&amp;C)…</translation>
    </message>
    <message>
        <source>Cop&amp;y figure</source>
        <translation>复制图表(&amp;Y)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Recompute</source>
        <translation>重新计算</translation>
    </message>
    <message>
        <source>Cancel work</source>
        <translation>取消计算</translation>
    </message>
    <message>
        <source>&amp;Presets</source>
        <translation>预设(&amp;P)</translation>
    </message>
    <message>
        <source>opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <source>the ImGui lab has no figure to export: choose another view</source>
        <translation>ImGui 实验台没有可导出的图表：请选择其他视图</translation>
    </message>
    <message>
        <source>Export figure</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)</source>
        <translation>PNG 图像 (*.png);;SVG 矢量图 (*.svg);;PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>PNG resolution</source>
        <translation>PNG 分辨率</translation>
    </message>
    <message>
        <source>dots per inch</source>
        <translation>每英寸点数 (dpi)</translation>
    </message>
    <message>
        <source>exported %1</source>
        <translation>已导出 %1</translation>
    </message>
    <message>
        <source>the ImGui lab has no data to export: choose another view</source>
        <translation>ImGui 实验台没有可导出的数据：请选择其他视图</translation>
    </message>
    <message>
        <source>Export data</source>
        <translation>导出数据</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>figure copied to the clipboard</source>
        <translation>图表已复制到剪贴板</translation>
    </message>
    <message>
        <source>Inference</source>
        <translation>推理</translation>
    </message>
    <message>
        <source>Roofline</source>
        <translation>Roofline</translation>
    </message>
    <message>
        <source>&amp;Slide mode (1920 × 1080, large text)</source>
        <translation>幻灯片模式（1920 × 1080，大字号）(&amp;S)</translation>
    </message>
</context>
<context>
    <name>attnlab::ParameterPanel</name>
    <message>
        <source>float32</source>
        <translation>float32</translation>
    </message>
    <message>
        <source>float16</source>
        <translation>float16</translation>
    </message>
    <message>
        <source>bfloat16</source>
        <translation>bfloat16</translation>
    </message>
    <message>
        <source>the precision the KV cache keeps keys and values in (2 bytes per element for float16 and bfloat16); the decoding step converts them to float32 as it reads</source>
        <translation>KV 缓存保存键和值所用的精度 (float16 与 bfloat16 每元素 2 字节)；解码步读取时转换为 float32</translation>
    </message>
    <message>
        <source>KV cache precision</source>
        <translation>KV 缓存精度</translation>
    </message>
    <message>
        <source>none, or H,W or T,H,W</source>
        <translation>无，或 H,W 或 T,H,W</translation>
    </message>
    <message>
        <source>Tokens on an image (H,W) or video (T,H,W) grid: n becomes the number of cells, and the pattern figures add the grid view of one query cell</source>
        <translation>词元位于图像（H,W）或视频（T,H,W）网格上：n 为单元数，模式图增加一个查询单元的网格视图</translation>
    </message>
    <message>
        <source>grid</source>
        <translation>网格</translation>
    </message>
    <message>
        <source>raster, tiles:a,b[,c] or morton</source>
        <translation>raster、tiles:a,b[,c] 或 morton</translation>
    </message>
    <message>
        <source>Which cell each sequence position holds: row by row (raster), tile by tile, or in Z order</source>
        <translation>每个序列位置对应哪个单元：逐行（光栅）、逐分片或 Z 序</translation>
    </message>
    <message>
        <source>order</source>
        <translation>顺序</translation>
    </message>
    <message>
        <source>centre cell</source>
        <translation>中心单元</translation>
    </message>
    <message>
        <source>The grid view&apos;s query cell as a sequence position; the figures also move it by hover, click and the arrow keys</source>
        <translation>网格视图的查询单元（序列位置）；在图中也可通过悬停、点击和方向键移动</translation>
    </message>
    <message>
        <source>grid query</source>
        <translation>网格查询</translation>
    </message>
    <message>
        <source>%1 (the figures keep the last valid grid)</source>
        <translation>%1（图保留上一个有效网格）</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>%1 × %1 blocks</source>
        <translation>%1 × %1 块</translation>
    </message>
    <message>
        <source>What a block kernel computes: the pattern cut into B × B blocks, empty blocks clear, partial ones hatched, full ones solid, with their counts</source>
        <translation>块内核的计算量：模式按 B × B 分块，空块透明，部分块加斜线，满块实心，并给出各自数目</translation>
    </message>
    <message>
        <source>block grid</source>
        <translation>分块网格</translation>
    </message>
    <message>
        <source>back to the default</source>
        <translation>恢复默认值</translation>
    </message>
    <message>
        <source>(no parameters)</source>
        <translation>(无参数)</translation>
    </message>
    <message>
        <source>comma list, e.g. 0,1,2</source>
        <translation>逗号分隔列表，例如 0,1,2</translation>
    </message>
    <message>
        <source>%1 = %2</source>
        <translation>%1 = %2</translation>
    </message>
    <message>
        <source>default %1</source>
        <translation>默认值 %1</translation>
    </message>
    <message>
        <source>default %1 · range %2</source>
        <translation>默认值 %1 · 范围 %2</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>(无)</translation>
    </message>
    <message>
        <source>Variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>Shape</source>
        <translation>形状</translation>
    </message>
    <message>
        <source>sequence length n (the slider is logarithmic)</source>
        <translation>序列长度 n (滑块为对数刻度)</translation>
    </message>
    <message>
        <source>head size d of Q and K (V uses the same)</source>
        <translation>Q 和 K 的头维度 d (V 与之相同)</translation>
    </message>
    <message>
        <source>heads h</source>
        <translation>头数 h</translation>
    </message>
    <message>
        <source>the head drawn by per-head views</source>
        <translation>按头绘制的视图所显示的头</translation>
    </message>
    <message>
        <source>shown head</source>
        <translation>显示的头</translation>
    </message>
    <message>
        <source>causal (j ≤ i)</source>
        <translation>因果 (j ≤ i)</translation>
    </message>
    <message>
        <source>Variant parameters</source>
        <translation>变体参数</translation>
    </message>
    <message>
        <source>Open %1</source>
        <translation>打开 %1</translation>
    </message>
    <message>
        <source>NumPy arrays (*.npy)</source>
        <translation>NumPy 数组 (*.npy)</translation>
    </message>
    <message>
        <source>Inputs Q, K, V</source>
        <translation>输入 Q、K、V</translation>
    </message>
    <message>
        <source>Random Gaussian</source>
        <translation>高斯随机</translation>
    </message>
    <message>
        <source>Local similarity</source>
        <translation>局部相似</translation>
    </message>
    <message>
        <source>NPY files</source>
        <translation>NPY 文件</translation>
    </message>
    <message>
        <source>Local similarity: q_i·k_j largest for j near i, so weights look like trained attention</source>
        <translation>局部相似：j 靠近 i 时 q_i·k_j 最大，使权重看起来像训练过的注意力</translation>
    </message>
    <message>
        <source>source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>Model shape…</source>
        <translation>模型形状…</translation>
    </message>
    <message>
        <source>preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>Display</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Mask M</source>
        <translation>掩码 M</translation>
    </message>
    <message>
        <source>Weights W</source>
        <translation>权重 W</translation>
    </message>
    <message>
        <source>Weights W + mask outline</source>
        <translation>权重 W + 掩码轮廓</translation>
    </message>
    <message>
        <source>pattern shows</source>
        <translation>模式视图显示</translation>
    </message>
    <message>
        <source>layers L</source>
        <translation>层数 L</translation>
    </message>
    <message>
        <source>MACs</source>
        <translation>乘加次数 (MACs)</translation>
    </message>
    <message>
        <source>FLOPs (2 × MACs)</source>
        <translation>浮点运算 FLOPs (2 × MACs)</translation>
    </message>
    <message>
        <source>cost unit</source>
        <translation>计算量单位</translation>
    </message>
    <message>
        <source>Variants: attention core vs n</source>
        <translation>变体：注意力核心随 n 变化</translation>
    </message>
    <message>
        <source>Layer: projections, core, FFN vs n</source>
        <translation>整层：投影、核心、FFN 随 n 变化</translation>
    </message>
    <message>
        <source>timing</source>
        <translation>计时</translation>
    </message>
    <message>
        <source>the timing sweep measures n = 64, 128, … up to this</source>
        <translation>计时扫描测量 n = 64, 128, … 直到此值</translation>
    </message>
    <message>
        <source>timing up to n</source>
        <translation>计时最大 n</translation>
    </message>
    <message>
        <source>queries see only keys j ≤ i</source>
        <translation>查询只能看到 j ≤ i 的键</translation>
    </message>
    <message>
        <source>this variant is causal only</source>
        <translation>该变体仅支持因果注意力</translation>
    </message>
    <message>
        <source>this variant is bidirectional only</source>
        <translation>该变体仅支持双向注意力</translation>
    </message>
    <message>
        <source>KEY=VALUE … title=TEXT</source>
        <translation>参数=值 … title=标题</translation>
    </message>
    <message>
        <source>This panel&apos;s own parameters, e.g. window=8 dilation=2, and after title= its title</source>
        <translation>本面板自己的参数，例如 window=8 dilation=2；title= 之后为其标题</translation>
    </message>
    <message>
        <source>· fixed by the preset %1</source>
        <translation>· 由预设 %1 固定</translation>
    </message>
    <message>
        <source>= h</source>
        <translation>= h</translation>
    </message>
    <message>
        <source>key/value heads h_kv: K and V have h_kv heads shared by groups of h / h_kv query heads (h_kv = 1: multi-query attention); must divide h</source>
        <translation>键/值头数 h_kv：K 和 V 有 h_kv 个头，每 h / h_kv 个查询头为一组共享一个 (h_kv = 1：多查询注意力)；须整除 h</translation>
    </message>
    <message>
        <source>key/value heads h_kv</source>
        <translation>键/值头数 h_kv</translation>
    </message>
    <message>
        <source>Inference</source>
        <translation>推理</translation>
    </message>
    <message>
        <source>layers of the whole model whose KV cache the inference view adds up</source>
        <translation>整个模型的层数，推理视图据此累加 KV 缓存</translation>
    </message>
    <message>
        <source>model layers</source>
        <translation>模型层数</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source>this machine&apos;s RAM (%1 GiB)</source>
        <translation>本机内存 (%1 GiB)</translation>
    </message>
    <message>
        <source>the memory the KV cache may take: the inference view marks where each curve outgrows it</source>
        <translation>KV 缓存可占用的内存：推理视图会标出每条曲线超出它的位置</translation>
    </message>
    <message>
        <source>memory budget</source>
        <translation>内存预算</translation>
    </message>
    <message>
        <source>Edit as expression</source>
        <translation>以表达式编辑</translation>
    </message>
    <message>
        <source>Switch to the custom variant with an expression that gives exactly this pattern</source>
        <translation>切换到自定义变体，并使用恰好给出此模式的表达式</translation>
    </message>
    <message>
        <source>Mask M coloured by component</source>
        <translation>按组成部分着色的掩码 M</translation>
    </message>
    <message>
        <source>Components as separate heads</source>
        <translation>各组成部分作为独立的头</translation>
    </message>
    <message>
        <source>The cat sat on the mat</source>
        <translation>一只 猫 坐 在 垫子 上</translation>
    </message>
    <message>
        <source>Words separated by spaces label the pattern&apos;s rows and columns when there are exactly n of them</source>
        <translation>以空格分隔的词恰好为 n 个时，用作模式的行列标签</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>令牌</translation>
    </message>
    <message>
        <source>guide lines n², n√n, n</source>
        <translation>参考线 n²、n√n、n</translation>
    </message>
    <message>
        <source>accuracy view: Q and K multiplied by s, the logits q·k/√d by s² (the softmax temperature)</source>
        <translation>精度视图：Q 和 K 乘以 s，logits q·k/√d 乘以 s² (即 softmax 温度)</translation>
    </message>
    <message>
        <source>accuracy input scale s</source>
        <translation>精度输入缩放 s</translation>
    </message>
    <message>
        <source>output: ‖out − out_full‖ / ‖out_full‖</source>
        <translation>输出：‖out − out_full‖ / ‖out_full‖</translation>
    </message>
    <message>
        <source>effective weights: ‖W − W_full‖ / ‖W_full‖</source>
        <translation>有效权重：‖W − W_full‖ / ‖W_full‖</translation>
    </message>
    <message>
        <source>accuracy error</source>
        <translation>精度误差</translation>
    </message>
    <message>
        <source>Fixed by the preset %1: %2</source>
        <translation>由预设 %1 固定：%2</translation>
    </message>
    <message>
        <source>Compare (same inputs)</source>
        <translation>对比 (相同输入)</translation>
    </message>
    <message>
        <source>side by side with</source>
        <translation>并排对比</translation>
    </message>
    <message>
        <source>FLOP and timing views: a block kernel&apos;s cost, every cell of each non-empty B × B block computed, beside the exact cost of the allowed cells</source>
        <translation>浮点运算与计时视图：块内核的计算量（每个非空 B × B 块的所有单元都计算），与只计允许单元的精确计算量并列</translation>
    </message>
    <message>
        <source>block kernel cost</source>
        <translation>块内核计算量</translation>
    </message>
    <message>
        <source>FLASH&apos;s GAU layer (no FFN)</source>
        <translation>FLASH 的 GAU 层（无 FFN）</translation>
    </message>
    <message>
        <source>attention + FFN 4hd</source>
        <translation>注意力 + FFN 4hd</translation>
    </message>
    <message>
        <source>FLOP layer</source>
        <translation>FLOP 所计的层</translation>
    </message>
    <message>
        <source>The layer the FLOP view costs %1 in: FLASH&apos;s gated attention unit, which replaces attention and the FFN, or the standard layer with a 4hd FFN</source>
        <translation>FLOP 视图计算 %1 所用的层：FLASH 的门控注意力单元（取代注意力与 FFN），或带 4hd FFN 的标准层</translation>
    </message>
    <message>
        <source>Only relu2 and mixed_chunk have a GAU layer; every other variant is costed in the standard layer</source>
        <translation>只有 relu2 和 mixed_chunk 有 GAU 层；其他变体都按标准层计算</translation>
    </message>
    <message>
        <source>timing: block kernel&apos;s prediction</source>
        <translation>计时：块内核的预测</translation>
    </message>
    <message>
        <source>Also draw the block kernel&apos;s computed cells, fitted to the measured times as the cost model is: which of the two the measured curve follows</source>
        <translation>同时画出块内核的计算单元，像计算量模型一样拟合到实测时间：看实测曲线更接近哪一个</translation>
    </message>
    <message>
        <source>all n rows</source>
        <translation>全部 n 行</translation>
    </message>
    <message>
        <source>Only the last m rows query, against all n keys: a chunk of prefill over a cache, or m tokens verified at once (the pattern view frames the m × n rectangle and counts its cells)</source>
        <translation>只有最后 m 行查询，对全部 n 个键：缓存之上的一段预填充，或一次验证的 m 个令牌（模式视图框出 m × n 矩形并统计其单元）</translation>
    </message>
    <message>
        <source>queries m</source>
        <translation>查询数 m</translation>
    </message>
</context>
<context>
    <name>attnlab::PatternView</name>
    <message>
        <source>decoding cache</source>
        <translation>解码缓存</translation>
    </message>
    <message>
        <source>decoding step t = %1 (orange: the new token and the keys it reads)</source>
        <translation>解码步 t = %1 (橙色：新令牌及其读取的键)</translation>
    </message>
    <message>
        <source>KV cache: %1 of the %2 keys so far (green columns), %3 evicted</source>
        <translation>KV 缓存：目前 %2 个键中保留 %1 个 (绿色列)，已逐出 %3 个</translation>
    </message>
    <message>
        <source>grid query: cell %1 (hover a row, click a cell or use the arrow keys)</source>
        <translation>网格查询：单元 %1（悬停一行、点击单元或用方向键移动）</translation>
    </message>
    <message>
        <source>cell %1 = position %2 (%3)
click: make it the query</source>
        <translation>单元 %1 = 位置 %2（%3）
点击：设为查询</translation>
    </message>
    <message>
        <source>grid view</source>
        <translation>网格视图</translation>
    </message>
    <message>
        <source>blocks %1 × %1: %2 full, %3 partial, %4 empty</source>
        <translation>%1 × %1 块：%2 个满块，%3 个部分块，%4 个空块</translation>
    </message>
    <message>
        <source>computed ÷ allowed cells: %1 (block density %2 %)</source>
        <translation>计算单元 ÷ 允许单元：%1（块密度 %2 %）</translation>
    </message>
    <message>
        <source>weights need an n × n matrix: shown for n ≤ %1</source>
        <translation>权重需要 n × n 矩阵：仅在 n ≤ %1 时显示</translation>
    </message>
    <message>
        <source>Effective weights W with mask outline</source>
        <translation>有效权重 W 与掩码轮廓</translation>
    </message>
    <message>
        <source>Effective weights W</source>
        <translation>有效权重 W</translation>
    </message>
    <message>
        <source>Attention pattern (allowed set M)</source>
        <translation>注意力模式 (允许集合 M)</translation>
    </message>
    <message>
        <source>%1 — compared</source>
        <translation>%1 — 对比</translation>
    </message>
    <message>
        <source>%1: query i = %2, key j = %3
allowed: %4</source>
        <translation>%1：查询 i = %2，键 j = %3
允许：%4</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>weight: %1</source>
        <translation>权重：%1</translation>
    </message>
    <message>
        <source>pattern</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>pattern tiles</source>
        <translation>模式图块</translation>
    </message>
    <message>
        <source>   head=%1</source>
        <translation>   头=%1</translation>
    </message>
    <message>
        <source>Computing the pattern…</source>
        <translation>正在计算模式…</translation>
    </message>
    <message>
        <source>(defaults)</source>
        <translation>(默认参数)</translation>
    </message>
    <message>
        <source>query i ↓   key j →</source>
        <translation>查询 i ↓   键 j →</translation>
    </message>
    <message>
        <source>nnz: %1</source>
        <translation>非零元：%1</translation>
    </message>
    <message>
        <source>density: %1 %</source>
        <translation>密度：%1%</translation>
    </message>
    <message>
        <source>mean row length: %1</source>
        <translation>平均行长度：%1</translation>
    </message>
    <message>
        <source>no mask: shows where W may be non-zero</source>
        <translation>无掩码：显示 W 可能非零的位置</translation>
    </message>
    <message>
        <source>row Q%1 attends to %2 keys</source>
        <translation>行 Q%1 关注 %2 个键</translation>
    </message>
    <message>
        <source>allowed (j ∈ M(i))</source>
        <translation>允许 (j ∈ M(i))</translation>
    </message>
    <message>
        <source>masked</source>
        <translation>屏蔽</translation>
    </message>
    <message>
        <source>sparse</source>
        <translation>稀疏</translation>
    </message>
    <message>
        <source>√(w / max w), viridis</source>
        <translation>√(w / max w)，viridis 色图</translation>
    </message>
    <message>
        <source>sign(w)·√(|w| / max |w|)</source>
        <translation>sign(w)·√(|w| / max |w|)</translation>
    </message>
    <message>
        <source>allowed share per pixel</source>
        <translation>每像素允许比例</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>exactly 0</source>
        <translation>恰为 0</translation>
    </message>
    <message>
        <source>core MACs: %1 = %2 % of full</source>
        <translation>核心 MACs：%1 = 完整注意力的 %2%</translation>
    </message>
    <message>
        <source>full attention: %1 MACs</source>
        <translation>完整注意力：%1 MACs</translation>
    </message>
    <message>
        <source>Pattern components as separate heads (A(1), A(2), …)</source>
        <translation>模式各组成部分作为独立的头 (A(1)、A(2)、…)</translation>
    </message>
    <message>
        <source>Attention pattern coloured by component</source>
        <translation>按组成部分着色的注意力模式</translation>
    </message>
    <message>
        <source>
component %1: %2</source>
        <translation>
组成部分 %1：%2</translation>
    </message>
    <message>
        <source>queries %1 … %2 (framed)</source>
        <translation>查询 %1 … %2 (框出)</translation>
    </message>
    <message>
        <source>%1 × %2 over a cache of %3</source>
        <translation>%1 × %2，缓存 %3 个位置</translation>
    </message>
    <message>
        <source>core MACs: %1 = %2 % of causal full</source>
        <translation>核心 MACs：%1 = 因果完整注意力的 %2%</translation>
    </message>
    <message>
        <source>causal full attention: %1 MACs</source>
        <translation>因果完整注意力：%1 MACs</translation>
    </message>
    <message>
        <source>of which relative positions q·R: %1 (one d-long product per allowed cell)</source>
        <translation>其中相对位置项 q·R：%1（每个允许单元一个长度为 d 的内积）</translation>
    </message>
    <message>
        <source>synthetic Q/K: Gaussian, seed %1</source>
        <translation>合成 Q/K：高斯，种子 %1</translation>
    </message>
    <message>
        <source>synthetic Q/K: local similarity, seed %1</source>
        <translation>合成 Q/K：局部相似，种子 %1</translation>
    </message>
</context>
<context>
    <name>attnlab::ReceptiveFieldView</name>
    <message>
        <source>grid reach</source>
        <translation>网格可达范围</translation>
    </message>
    <message>
        <source>from query cell %1 = position %2: %3 of %4 cells within %5 layers</source>
        <translation>从查询单元 %1 = 位置 %2：%5 层内到达 %4 个单元中的 %3 个</translation>
    </message>
    <message>
        <source>query %1: %2 of %3 cells</source>
        <translation>查询 %1：到达 %3 个单元中的 %2 个</translation>
    </message>
    <message>
        <source>n = %1: each cell is a block of about %2 × %2 pairs showing its fewest hops</source>
        <translation>n = %1：每个单元格约为 %2 × %2 对，显示其中最少跳数</translation>
    </message>
    <message>
        <source>n = %1 &gt; %2: heatmap and curves from %3 evenly spaced queries i (rows); each cell shows the fewest hops over its %4 keys</source>
        <translation>n = %1 &gt; %2：热图和曲线取自 %3 个均匀间隔的查询 i (行)；每个单元格显示其 %4 个键中的最少跳数</translation>
    </message>
    <message>
        <source>all causal pairs j ≤ i: (n + 1) / 2n</source>
        <translation>全部因果对 j ≤ i：(n + 1) / 2n</translation>
    </message>
    <message>
        <source>Receptive field of one layer</source>
        <translation>单层的感受野</translation>
    </message>
    <message>
        <source>Receptive field of %1 stacked layers</source>
        <translation>%1 层堆叠的感受野</translation>
    </message>
    <message>
        <source>%1 — compared</source>
        <translation>%1 — 对比</translation>
    </message>
    <message>
        <source>   layers L=%1   head=%2</source>
        <translation>   层数 L=%1   头=%2</translation>
    </message>
    <message>
        <source>   |   every layer uses the same pattern with a residual path: input j reaches query i after l layers iff j is within l hops of i</source>
        <translation>   |   每层使用相同模式并带残差连接：输入 j 经过 l 层到达查询 i，当且仅当 j 在 i 的 l 跳之内</translation>
    </message>
    <message>
        <source>Computing the receptive field…</source>
        <translation>正在计算感受野…</translation>
    </message>
    <message>
        <source>hops(i, j): layers until query i sees input j</source>
        <translation>hops(i, j)：查询 i 看到输入 j 所需的层数</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>0 (i itself)</source>
        <translation>0 (i 自身)</translation>
    </message>
    <message>
        <source>not within %1</source>
        <translation>%1 层内不可达</translation>
    </message>
    <message>
        <source>rows: query i (0 at the top), columns: input j; colour: layers until i sees j</source>
        <translation>行：查询 i (0 在顶部)，列：输入 j；颜色：i 看到 j 所需层数</translation>
    </message>
    <message>
        <source>layers l</source>
        <translation>层数 l</translation>
    </message>
    <message>
        <source>pairs (i, j) reachable</source>
        <translation>可达的 (i, j) 对</translation>
    </message>
    <message>
        <source>Share of the n² pairs reachable within l layers</source>
        <translation>l 层内可达的 n² 对所占比例</translation>
    </message>
    <message>
        <source>farthest |i − j| reached</source>
        <translation>可达的最远 |i − j|</translation>
    </message>
    <message>
        <source>Reach distance: max (solid) and mean (dashed) over queries</source>
        <translation>覆盖距离：各查询的最大值 (实线) 与平均值 (虚线)</translation>
    </message>
    <message>
        <source>all pairs: %1</source>
        <translation>全部可达：%1</translation>
    </message>
    <message>
        <source>the query itself (0 layers)</source>
        <translation>查询自身 (0 层)</translation>
    </message>
    <message>
        <source>not reached within %1 layers</source>
        <translation>%1 层内未到达</translation>
    </message>
    <message>
        <source>reached after %1 layer(s)</source>
        <translation>经过 %1 层到达</translation>
    </message>
    <message>
        <source>%1: query i = %2, key j = %3: %4</source>
        <translation>%1：查询 i = %2，键 j = %3：%4</translation>
    </message>
    <message>
        <source>receptive field</source>
        <translation>感受野</translation>
    </message>
    <message>
        <source> reach </source>
        <translation> 覆盖距离 </translation>
    </message>
    <message>
        <source>: field </source>
        <translation>：感受野 </translation>
    </message>
</context>
<context>
    <name>attnlab::RooflineView</name>
    <message>
        <source>Roofline of this machine: prefill vs one decoding step</source>
        <translation>本机Roofline：预填充与单个解码步对比</translation>
    </message>
    <message>
        <source>Roofline: FMA peak %1 GFLOP/s, memory %2 GB/s (threads: %3)</source>
        <translation>Roofline：FMA 峰值 %1 GFLOP/s，内存 %2 GB/s (线程数：%3)</translation>
    </message>
    <message>
        <source>   |   h_kv=%1. Arithmetic intensity = 2 × MACs / bytes_min (the least memory traffic: docs/benchmarks.md, docs/inference.md); GFLOP/s = 2 × MACs / median time. Roof = min(FMA peak, intensity × STREAM-triad bandwidth); left of the ridge memory-bound, right of it compute-bound. Prefill: a full forward at n; decode: one token at context n. A kernel repeated on data that fits the caches (last level: %2) reads it from there and can pass the memory roof, which is measured on arrays larger than the cache.</source>
        <translation> | h_kv=%1。算术强度 = 2 × MACs / bytes_min (最小内存访问量：docs/benchmarks.md、docs/inference.md)；GFLOP/s = 2 × MACs / 耗时中位数。屋顶 = min(FMA 峰值, 算术强度 × STREAM-triad 带宽)；脊点左侧受内存限制，右侧受计算限制。预填充：长度 n 的完整前向计算；解码：上下文长度 n 下的单个令牌。若内核反复处理能装入 CPU 缓存 (末级：%2) 的数据，会直接从缓存读取，因而可能越过内存屋顶——后者是在大于缓存的数组上测得的。</translation>
    </message>
    <message>
        <source>size unknown</source>
        <translation>大小未知</translation>
    </message>
    <message>
        <source>arithmetic intensity (flop per byte of minimum memory traffic)</source>
        <translation>算术强度 (每字节最小内存访问量的 flop 数)</translation>
    </message>
    <message>
        <source>GFLOP/s (measured)</source>
        <translation>GFLOP/s (实测)</translation>
    </message>
    <message>
        <source>Prefill (filled circles) and one decoding step (open squares) under the roof</source>
        <translation>屋顶下的预填充 (实心圆) 与单个解码步 (空心方块)</translation>
    </message>
    <message>
        <source>measuring this machine&apos;s FMA peak and memory bandwidth…</source>
        <translation>正在测量本机的 FMA 峰值与内存带宽…</translation>
    </message>
    <message>
        <source>timing prefill and decoding…</source>
        <translation>正在为预填充和解码计时…</translation>
    </message>
    <message>
        <source>no measurement</source>
        <translation>无测量</translation>
    </message>
    <message>
        <source>roof</source>
        <translation>屋顶</translation>
    </message>
    <message>
        <source>ridge %1 flop/byte</source>
        <translation>脊点 %1 flop/byte</translation>
    </message>
    <message>
        <source>decode</source>
        <translation>解码</translation>
    </message>
    <message>
        <source>prefill</source>
        <translation>预填充</translation>
    </message>
    <message>
        <source>%1 %2: %3</source>
        <translation>%1 %2：%3</translation>
    </message>
    <message>
        <source>%1 %2: %3 GFLOP/s (cached)</source>
        <translation>%1 %2：%3 GFLOP/s (命中缓存)</translation>
    </message>
    <message>
        <source>%1 %2: %3 GFLOP/s, %4% of roof</source>
        <translation>%1 %2：%3 GFLOP/s，达屋顶的 %4%</translation>
    </message>
    <message>
        <source>%1 GFLOP/s (cached)</source>
        <translation>%1 GFLOP/s (命中缓存)</translation>
    </message>
    <message>
        <source>%1 GFLOP/s, %2%</source>
        <translation>%1 GFLOP/s，%2%</translation>
    </message>
    <message>
        <source>roofline</source>
        <translation>Roofline</translation>
    </message>
</context>
<context>
    <name>attnlab::TimingView</name>
    <message>
        <source>One Transformer layer measured: %1 attention, h=%2, d=%3 (hd=%4)</source>
        <translation>实测单个 Transformer 层：%1 注意力，h=%2，d=%3 (hd=%4)</translation>
    </message>
    <message>
        <source>Measured attention time vs n: %1 (d=%2, h=%3)</source>
        <translation>实测注意力耗时随 n 的变化：%1 (d=%2，h=%3)</translation>
    </message>
    <message>
        <source> vs </source>
        <translation> vs </translation>
    </message>
    <message>
        <source>%1=%2   d=%3   h=%4   causal=%5   n=%6…%7   Gaussian inputs   |   threads: %8, median of ≥ %9 runs after a warm-up (≥ %10 s per point)   |   dashed: prediction = cost-model MACs ÷ one MAC rate per curve, fitted to its measured times</source>
        <translation>%1=%2   d=%3   h=%4   因果=%5   n=%6…%7   高斯随机输入   |   线程数：%8，预热后至少 %9 次运行的中位数 (每点 ≥ %10 秒)   |   虚线：预测值 = 计算量模型 MACs ÷ 每条曲线一个按其实测时间拟合的 MAC 速率</translation>
    </message>
    <message>
        <source>variants</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>variant</source>
        <translation>变体</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>   |   projections and FFN on the GEMM engine; self-attention = QKV + core + output projection; the FFN&apos;s activation is not timed</source>
        <translation>   |   投影和 FFN 由 GEMM 引擎计算；自注意力 = QKV + 核心 + 输出投影；FFN 的激活函数不计时</translation>
    </message>
    <message>
        <source>   |   memory: the process&apos;s peak resident set during the runs minus before them (outputs and workspaces, and in the app what its window allocates meanwhile; the inputs already exist); a kernel&apos;s kept workspace counts at the first point that needs it; dashed: the output plus the kernel&apos;s workspace by the cost model</source>
        <translation>   |   内存：运行期间进程常驻内存峰值减去运行前的值 (输出与工作区，在应用中还包括窗口同时分配的内存；输入已事先存在)；内核保留的工作区计入首个需要它的点；虚线：成本模型给出的输出加内核工作区</translation>
    </message>
    <message>
        <source>measuring %1/%2…</source>
        <translation>正在测量 %1/%2…</translation>
    </message>
    <message>
        <source>cancelled: %1 of %2 points measured (partial)</source>
        <translation>已取消：已测 %2 个点中的 %1 个 (部分结果)</translation>
    </message>
    <message>
        <source>waiting to measure</source>
        <translation>等待测量</translation>
    </message>
    <message>
        <source>%1 points measured in %2</source>
        <translation>已测量 %1 个点，用时 %2</translation>
    </message>
    <message>
        <source>CPU-starved, ringed and left out of fits and crossovers (less than %1% of the cores: other programs were busy): %2</source>
        <translation>CPU 资源不足，带圈标记，不参与拟合与交叉点计算 (获得的核心时间不足 %1%：其他程序繁忙)：%2</translation>
    </message>
    <message>
        <source>%1 at n = %2</source>
        <translation>%1 (n = %2)</translation>
    </message>
    <message>
        <source>self-attention &gt; FFN</source>
        <translation>自注意力 &gt; FFN</translation>
    </message>
    <message>
        <source>self-attention &gt; FFN: %1</source>
        <translation>自注意力 &gt; FFN：%1</translation>
    </message>
    <message>
        <source>timing sweep</source>
        <translation>计时扫描</translation>
    </message>
    <message>
        <source>sequence length n</source>
        <translation>序列长度 n</translation>
    </message>
    <message>
        <source>wall time per run (median)</source>
        <translation>每次运行耗时 (中位数)</translation>
    </message>
    <message>
        <source>Time of each part (log-log); markers: self-attention = FFN</source>
        <translation>各部分耗时 (双对数)；标记：自注意力 = FFN</translation>
    </message>
    <message>
        <source>Attention core time (log-log)</source>
        <translation>注意力核心耗时 (双对数)</translation>
    </message>
    <message>
        <source>%1 · slope %2 (cost model %3)</source>
        <translation>%1 · 斜率 %2 (计算量模型 %3)</translation>
    </message>
    <message>
        <source>%1 (kernels: %2)</source>
        <translation>%1 (内核：%2)</translation>
    </message>
    <message>
        <source>%1 (own kernels)</source>
        <translation>%1 (自带内核)</translation>
    </message>
    <message>
        <source>%1, %2 GFLOP/s</source>
        <translation>%1，%2 GFLOP/s</translation>
    </message>
    <message>
        <source>projections and FFN on %1, %2 GFLOP/s</source>
        <translation>投影与 FFN 运行于 %1，%2 GFLOP/s</translation>
    </message>
    <message>
        <source>projections and FFN on the faster GEMM engine: %1, %2 GFLOP/s (also timed: %3)</source>
        <translation>投影与 FFN 运行于较快的 GEMM 引擎：%1，%2 GFLOP/s (另测：%3)</translation>
    </message>
    <message>
        <source>warning: the GEMM engine runs at %1% of the attention core&apos;s %2 GFLOP/s, so the projections and the FFN are slowed and the measured crossover moves to larger n</source>
        <translation>警告：GEMM 引擎的速率仅为注意力核心 %2 GFLOP/s 的 %1%，投影与 FFN 因此变慢，实测交叉点移向更大的 n</translation>
    </message>
    <message>
        <source>%1 · no slope (fewer than %2 trusted points)</source>
        <translation>%1 · 无斜率 (可信点少于 %2 个)</translation>
    </message>
    <message>
        <source>%1: not valid at n = %2</source>
        <translation>%1：在 n = %2 时无效</translation>
    </message>
    <message>
        <source>cost model; slopes fitted over n ≥ %1, %2 points at least</source>
        <translation>计算量模型；斜率在 n ≥ %1 上拟合，至少 %2 个点</translation>
    </message>
    <message>
        <source>no measurement yet</source>
        <translation>尚无测量</translation>
    </message>
    <message>
        <source>measured ≈ %1</source>
        <translation>实测 ≈ %1</translation>
    </message>
    <message>
        <source>cost model: %1</source>
        <translation>计算量模型：%1</translation>
    </message>
    <message>
        <source>already at n = %1</source>
        <translation>在 n = %1 时即已成立</translation>
    </message>
    <message>
        <source>not yet</source>
        <translation>尚未出现</translation>
    </message>
    <message>
        <source>not up to n = %1</source>
        <translation>直到 n = %1 仍未出现</translation>
    </message>
    <message>
        <source>self-attention &gt; FFN: measured %1, cost model %2</source>
        <translation>自注意力 &gt; FFN：实测 %1，计算量模型 %2</translation>
    </message>
    <message>
        <source>GFLOP/s</source>
        <translation>GFLOP/s</translation>
    </message>
    <message>
        <source>Rate: 2 × cost-model MACs / median time</source>
        <translation>速率：2 × 计算量模型 MACs / 耗时中位数</translation>
    </message>
    <message>
        <source>bytes</source>
        <translation>字节</translation>
    </message>
    <message>
        <source>Peak extra memory (dashed: model)</source>
        <translation>额外内存峰值 (虚线：模型)</translation>
    </message>
    <message>
        <source>% of layer time</source>
        <translation>占层耗时的 %</translation>
    </message>
    <message>
        <source>Measured layer time, stacked</source>
        <translation>实测层耗时 (堆叠)</translation>
    </message>
    <message>
        <source>guide ∝ n²</source>
        <translation>参考线 ∝ n²</translation>
    </message>
    <message>
        <source>guide ∝ n√n</source>
        <translation>参考线 ∝ n√n</translation>
    </message>
    <message>
        <source>guide ∝ n</source>
        <translation>参考线 ∝ n</translation>
    </message>
    <message>
        <source>image cells n = H·W (images %1 … %2)</source>
        <translation>图像单元数 n = H·W（图像 %1 … %2）</translation>
    </message>
    <message>
        <source>%1, %2, scaled</source>
        <translation>%1，%2，按比例缩放</translation>
    </message>
    <message>
        <source>Measured time vs image size: %1 (d=%2, h=%3), %4, scaled</source>
        <translation>实测时间与图像大小：%1（d=%2，h=%3），%4，按比例缩放</translation>
    </message>
    <message>
        <source>   |   grid: %1, scaled to each n (frames, aspect and order kept)</source>
        <translation>   |   网格：%1，按每个 n 缩放（保持帧数、宽高比与顺序）</translation>
    </message>
    <message>
        <source>   |   dotted: block kernel (B=%1) = computed cells of the B×B blocks × (d + dv) × h MACs ÷ one MAC rate per curve, fitted to the same times</source>
        <translation>   |   点线：块内核 (B=%1) = B×B 块的计算单元 × (d + dv) × h 次乘加 ÷ 每条曲线一个乘加速率，拟合到同样的实测时间</translation>
    </message>
    <message>
        <source>block-kernel costs</source>
        <translation>块内核计算量</translation>
    </message>
    <message>
        <source>%1 · slope %2 (cost model %3, block kernel %4)</source>
        <translation>%1 · 斜率 %2（计算量模型 %3，块内核 %4）</translation>
    </message>
    <message>
        <source>block kernel (B=%1): computed cells of its B×B blocks, fitted as the cost model</source>
        <translation>块内核 (B=%1)：其 B×B 块的计算单元，拟合方式同计算量模型</translation>
    </message>
    <message>
        <source>no copy of the %1 scaled to 64 … %2 cells: raise the timing sweep&apos;s largest n</source>
        <translation>%1 没有缩放到 64 … %2 个单元的副本：请提高计时扫描的最大 n</translation>
    </message>
    <message>
        <source>%1 at n = %2: %3 the cost model&apos;s time, a miss that shrinks as n grows: a fixed cost per call (threads, plans, buffers) outweighs its multiply-adds there</source>
        <translation>%1 在 n = %2：为成本模型时间的 %3，偏差随 n 增大而缩小：每次调用的固定开销（线程、计划、缓冲区）在此超过其乘加运算</translation>
    </message>
</context>
</TS>
