// A small behavioural adder: s = a + b + cin on 4-bit operands, 5-bit sum
module adder4 (input [3:0] a, input [3:0] b, input cin, output [4:0] s);
  assign s = a + b + cin;
endmodule
